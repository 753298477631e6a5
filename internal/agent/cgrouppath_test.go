package agent

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"
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

// TestCgroupNamedTwiceIsRefused: one cgroup in two spellings, relative and absolute under the
// host's mount, is refused as the same spelling twice is: the later entry used to replace the
// first, its level and ceiling dropped without a word. At start the file is refused; in an edit
// it is an invalid file, counted, and the running configuration stays.
func TestCgroupNamedTwiceIsRefused(t *testing.T) {
	const good = cgroupFileHead + "    - {path: qjtest-a, level: 5, max_level: 5}\n"
	twice := good + "    - {path: /sys/fs/cgroup/qjtest-a, level: 1}\n"
	root := "/sys/fs/cgroup"
	if _, _, _, err := loggedAgent(t, "", twice, Options{CgroupRoot: root}); err == nil ||
		!strings.Contains(err.Error(), `agent.cgroups[1].path "/sys/fs/cgroup/qjtest-a"`) ||
		!strings.Contains(err.Error(), `agent.cgroups[0].path "qjtest-a"`) {
		t.Errorf("start with one cgroup twice: %v; want refused naming both entries", err)
	}

	a, _, log, err := loggedAgent(t, "", good, Options{CgroupRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	running := a.current.Load().Hash
	a.onFile(fileChange{data: []byte(twice)})
	if n := promtestutil.ToFloat64(a.m.configErrors.WithLabelValues("invalid")); n != 1 {
		t.Errorf("invalid edits counted %v, want 1", n)
	}
	if ok := promtestutil.ToFloat64(a.m.lastLoadOK); ok != 0 {
		t.Errorf("last load successful %v after the edit, want 0", ok)
	}
	want, _ := a.wantedCgroups()
	if p := want[filepath.Join(root, "qjtest-a")].Placement; p.Level != 5 || p.MaxLevel != 5 || a.current.Load().Hash != running {
		t.Errorf("after the refused edit the cgroup is at %+v, want the running level 5 and ceiling 5", p)
	}
	if !strings.Contains(log.String(), "config invalid") || !strings.Contains(log.String(), "each cgroup once") {
		t.Errorf("the refused edit is not logged as invalid:\n%s", log.String())
	}
}

// TestCgroupOutsideTheRootIsRefused: a path that leaves the cgroup v2 root names no cgroup (the
// agent used to turn ../../../tmp/x into /sys/tmp/x and wait for it), and the root itself would put
// every process of the host on the level: each is refused naming the key and the value.
func TestCgroupOutsideTheRootIsRefused(t *testing.T) {
	for _, path := range []string{"../../../tmp/qjtest", "a/../../qjtest", "/sys/fs/cgroup/../../tmp/qjtest",
		"/tmp/qjtest", ".", "/sys/fs/cgroup", "/sys/fs/cgroup/"} {
		file := cgroupFileHead + "    - {path: \"" + path + "\", level: 1}\n"
		_, _, _, err := loggedAgent(t, "", file, Options{CgroupRoot: "/sys/fs/cgroup"})
		if err == nil || !strings.Contains(err.Error(), `agent.cgroups[0].path "`+path+`"`) {
			t.Errorf("path %q: %v; want refused naming agent.cgroups[0].path and the value", path, err)
		}
	}
	for _, path := range []string{"qjtest.slice/a", "/sys/fs/cgroup/qjtest.slice/../qjtest-b", "./qjtest-c"} {
		file := cgroupFileHead + "    - {path: \"" + path + "\", level: 1}\n"
		if _, _, _, err := loggedAgent(t, "", file, Options{CgroupRoot: "/sys/fs/cgroup"}); err != nil {
			t.Errorf("path %q: %v; want accepted", path, err)
		}
	}
}

// TestNoCgroupRootFindsNoCgroup: with no cgroup v2 hierarchy to be found (no mount, and mounting
// one privately failed), a file's cgroup is refused saying why, where the agent used to look for
// it in its working directory.
func TestNoCgroupRootFindsNoCgroup(t *testing.T) {
	spec, err := Parse("t", []byte(cgroupFileHead+"    - {path: qjtest-a, level: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = resolveCgroups(&spec, "", errors.New("no cgroup v2 hierarchy at /sys/fs/cgroup"))
	if err == nil || !strings.Contains(err.Error(), `agent.cgroups[0].path "qjtest-a"`) ||
		!strings.Contains(err.Error(), "no cgroup v2 hierarchy") {
		t.Errorf("resolve with no root: %v; want refused naming the entry and why", err)
	}
}

// TestCeilingBelowTheLevelIsRefused: a ceiling below the level would send every packet of the
// cgroup below the level it was given. `qjump assign --level 5 --max-level 2` is refused for it;
// the file and a pod's annotations took it. All three refuse it now, in one message.
func TestCeilingBelowTheLevelIsRefused(t *testing.T) {
	_, err := Parse("t", []byte(cgroupFileHead+"    - {path: qjtest-a, level: 5, max_level: 2}\n"))
	if err == nil || !strings.Contains(err.Error(),
		`invalid agent.cgroups[0].max_level "2": below agent.cgroups[0].level 5, so the level could never be used`) {
		t.Errorf("file with max_level 2 below level 5: %v; want refused naming both keys", err)
	}
	_, placed, err := placementOf(pod("p", "n", map[string]string{AnnotationLevel: "5", AnnotationMaxLevel: "2"}))
	if placed || err == nil || !strings.Contains(err.Error(), `annotation qjump.io/max-level "2": below qjump.io/level 5`) {
		t.Errorf("pod with max-level 2 below level 5: placed %v, %v; want refused naming both annotations", placed, err)
	}
	for _, file := range []string{"level: 5, max_level: 5", "level: 2, max_level: 5", "level: 5"} {
		if _, err := Parse("t", []byte(cgroupFileHead+"    - {path: qjtest-a, "+file+"}\n")); err != nil {
			t.Errorf("file with %s: %v; want accepted", file, err)
		}
	}
}
