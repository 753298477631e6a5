package apputil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testutil"
)

// Under `ip netns exec` (no cgroup v2 mount in its fresh /sys) run mounts cgroup v2 privately: a
// qjump killed outright leaves no mount point behind. It used to leave an empty
// /tmp/qjump-cgroup2-* directory at every SIGKILL, and at every Ctrl-C of assign or of run
// before CMD started.
func TestCgroupRootLeavesNoMountPoint(t *testing.T) {
	p := newNSPair(t)
	b := programs(t)
	mountPoints := filepath.Join(os.TempDir(), "qjump-cgroup2-*")
	before, _ := filepath.Glob(mountPoints)
	cmd := exec.Command("ip", "netns", "exec", p.a, b.qjump, "run", "--mode", "cgroup", "--level", "1", "--", "sleep", "20")
	cmd.Env = qjumpEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// ip netns exec execs qjump: the PID is qjump's.
	cgroups := filepath.Join(mustRoot(t), Slice, fmt.Sprintf("run-%d-*", cmd.Process.Pid))
	testutil.WaitFor(t, 10*time.Second, "the run's cgroup with its process", func() bool { m, _ := filepath.Glob(cgroups); return len(m) == 1 && populated(m[0]) })
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if after, _ := filepath.Glob(mountPoints); len(after) != len(before) {
		t.Errorf("mount points left behind by a killed run: %v (before it: %v)", after, before)
		for _, dir := range after {
			if !strings.Contains(strings.Join(before, "\n"), dir) {
				_ = os.Remove(dir)
			}
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
