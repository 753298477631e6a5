package agent

import (
	"path/filepath"
	"testing"
)

const cgroupFileHead = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n  cgroups:\n"

// TestHostPathUnderPrivateRoot: with --cgroup-root at a private mount of the hierarchy (the
// DaemonSet's /host/sys/fs/cgroup), a file's absolute path under the host's mount names the same
// cgroup under that root, as `qjump assign --cgroup /sys/fs/cgroup/x` reads it. The agent used to
// take it as it was, a path of no cgroup in the pod: the rule was "not on this host (yet)" for ever.
func TestHostPathUnderPrivateRoot(t *testing.T) {
	root := t.TempDir()
	file := cgroupFileHead + "    - {path: /sys/fs/cgroup/system.slice/qjtest.service, level: 5}\n" +
		"    - {path: other.slice, level: 3}\n"
	a, _, _, err := loggedAgent(t, "", file, Options{CgroupRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := a.wantedCgroups()
	for _, path := range []string{filepath.Join(root, "system.slice/qjtest.service"), filepath.Join(root, "other.slice")} {
		if _, ok := want[path]; !ok {
			t.Errorf("wanted cgroups %v: no %s", sortedKeys(want), path)
		}
	}
}
