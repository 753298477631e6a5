package agent_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testutil"
)

// testService makes a cgroup for a test under the host's cgroup v2 mount, removed when it ends.
func testService(t *testing.T, what string) string {
	t.Helper()
	root, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	path := filepath.Join(root, fmt.Sprintf("qjump-agent-%s-%d.service", what, os.Getpid()))
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(path) })
	return path
}

// TestHostPathUnderCgroupRootFlag is the DaemonSet's agent: no cgroup v2 mount where the host
// has one (the pod's /sys is its own; here, ip netns exec's), --cgroup-root at a mount of the
// host's hierarchy (/host/sys/fs/cgroup in the pod), and a file that names a service by its host
// path, as `qjump assign` takes it there. The agent used to look for the host path as it was, and
// log the service "not on this host (yet)" for ever.
func TestHostPathUnderCgroupRootFlag(t *testing.T) {
	e := newAgentNS(t, "qjagpr", 92)
	service := testService(t, "private")
	private := t.TempDir()
	must(t, "mount", "-t", "cgroup2", "none", private)
	t.Cleanup(func() { must(t, "umount", private) })

	config := clusterFile(t, cgroupConfig+fmt.Sprintf("  cgroups:\n    - {path: %s, level: 3}\n", service))
	a := startAgentWith(t, ipNetnsExec, e.bin, e.pair.A, config, "127.0.0.1:0", t.TempDir(),
		"--cgroup-root", private, "--down-on-exit")
	a.waitListening(10 * time.Second)
	waitMetric(t, a, "qjump_agent_cgroups_assigned", 1)
	waitMetric(t, a, "qjump_agent_cgroups_absent", 0)
	a.stop()
}

// TestAgentUnderIPNetnsExecFindsCgroups: `ip netns exec` gives the agent a /sys without the cgroup
// v2 mount. The agent went on with no root and looked for the file's cgroups in its working
// directory: a service that runs was "not on this host (yet)". It mounts the hierarchy privately
// instead, as `qjump assign` does there, and finds a cgroup named either way.
func TestAgentUnderIPNetnsExecFindsCgroups(t *testing.T) {
	e := newAgentNS(t, "qjagnx", 93)
	root, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	relative, absolute := testService(t, "netnsexec-rel"), testService(t, "netnsexec-abs")
	name, err := filepath.Rel(root, relative)
	if err != nil {
		t.Fatal(err)
	}
	config := clusterFile(t, cgroupConfig+fmt.Sprintf("  cgroups:\n    - {path: %s, level: 3}\n    - {path: %s, level: 1}\n",
		name, absolute))
	a := startAgentWith(t, ipNetnsExec, e.bin, e.pair.A, config, "127.0.0.1:0", t.TempDir(), "--down-on-exit")
	a.waitListening(10 * time.Second)
	waitMetric(t, a, "qjump_agent_cgroups_assigned", 2)
	waitMetric(t, a, "qjump_agent_cgroups_absent", 0)
	a.stop()
}
