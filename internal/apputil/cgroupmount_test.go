package apputil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testutil"
)

// Under `ip netns exec` (no cgroup v2 mount in its fresh /sys) run reaches cgroup v2 through a
// detached mount (CgroupRoot): a qjump killed outright leaves no mount point behind. It used to leave an empty
// /tmp/qjump-cgroup2-* directory at every SIGKILL, and at every Ctrl-C of assign or of run
// before CMD started.
func TestCgroupRootLeavesNoMountPoint(t *testing.T) {
	p := newNSPair(t)
	b := programs(t)
	before := tempEntries(t)
	cmd := exec.Command("ip", "netns", "exec", p.a, b.qjump, "run", "--mode", "cgroup", "--level", "1", "--", "sleep", "20")
	cmd.Env = qjumpEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// ip netns exec execs qjump: the PID is qjump's.
	cgroups := filepath.Join(mustRoot(t), Slice, fmt.Sprintf("run-%d-*", cmd.Process.Pid))
	testutil.WaitFor(t, 10*time.Second, "the run's cgroup with its process", func() bool { m, _ := filepath.Glob(cgroups); return len(m) == 1 && populated(m[0]) })
	// It reached the cgroup tree, yet no cgroup2 mount is attached in its mount namespace (ip netns
	// exec's fresh /sys has none): what it holds is detached, so a kill has no mount point to leave.
	if m := cgroup2Mounts(t, cmd.Process.Pid); len(m) != 0 {
		t.Errorf("the run attached cgroup v2 mounts, which a kill would leave behind: %q", m)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if left := newEntries(before, tempEntries(t)); len(left) != 0 {
		t.Errorf("a killed run left %v in %s", left, os.TempDir())
		for _, name := range left {
			_ = os.Remove(filepath.Join(os.TempDir(), name))
		}
	}
	// The next run sweeps the killed run's cgroup (its sleep went with qjump).
	testutil.WaitFor(t, 5*time.Second, "the killed run's cgroup to empty", func() bool { m, _ := filepath.Glob(cgroups); return len(m) == 1 && !populated(m[0]) })
	if o := p.qjump(t, "run", "--mode", "cgroup", "--level", "1", "--", "true"); o.code() != 0 {
		t.Errorf("a run under ip netns exec: exit %d, stderr %q", o.code(), o.stderr)
	}
	if m, _ := filepath.Glob(cgroups); len(m) != 0 {
		t.Errorf("stale cgroup not swept: %v", m)
	}
}

// tempEntries is the directories in os.TempDir that qjump could have made there (a mount point
// is a directory).
func tempEntries(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "qjump") {
			names = append(names, e.Name())
		}
	}
	return names
}

// newEntries is what after holds and before did not.
func newEntries(before, after []string) []string {
	var added []string
	for _, name := range after {
		if !slices.Contains(before, name) {
			added = append(added, name)
		}
	}
	return added
}

// cgroup2Mounts is the mount points of cgroup v2 in pid's mount namespace.
func cgroup2Mounts(t *testing.T, pid int) []string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
	if err != nil {
		t.Fatal(err)
	}
	var points []string
	for _, line := range strings.Split(string(data), "\n") {
		// ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
		fields := strings.Fields(line)
		sep := slices.Index(fields, "-")
		if sep > 4 && sep+1 < len(fields) && fields[sep+1] == "cgroup2" {
			points = append(points, fields[4])
		}
	}
	return points
}
