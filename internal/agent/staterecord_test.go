package agent

import (
	"maps"
	"slices"
	"testing"
)

// The state file names each cgroup relative to the cgroup v2 root, so that the next agent finds
// the same cgroups whatever root it has: under ip netns exec the root is a private mount,
// /proc/self/fd/N, whose N changes from run to run, and a record of /proc/self/fd/6/a.service was
// read by the next agent as another file (review, helper-55). Records of earlier agents, absolute,
// are read back under the new root.
func TestStateRecordsCgroupsUnderTheRoot(t *testing.T) {
	a, b := &assignment{ID: 1}, &assignment{ID: 2}
	recorded := recordCgroups("/proc/self/fd/6", map[string]*assignment{"/proc/self/fd/6/a.service": a, "/proc/self/fd/6/k/b": b})
	if got := slices.Sorted(maps.Keys(recorded)); !slices.Equal(got, []string{"a.service", "k/b"}) {
		t.Fatalf("recorded %v, want the paths relative to the root", got)
	}
	for root, want := range map[string][]string{
		"/proc/self/fd/9":     {"/proc/self/fd/9/a.service", "/proc/self/fd/9/k/b"},
		"/sys/fs/cgroup":      {"/sys/fs/cgroup/a.service", "/sys/fs/cgroup/k/b"},
		"/host/sys/fs/cgroup": {"/host/sys/fs/cgroup/a.service", "/host/sys/fs/cgroup/k/b"},
	} {
		back := appliedCgroups(root, recorded)
		if got := slices.Sorted(maps.Keys(back)); !slices.Equal(got, want) {
			t.Errorf("read back under %s: %v, want %v", root, got, want)
		}
		if back[want[0]] != a || back[want[1]] != b {
			t.Errorf("read back under %s: the assignments moved between cgroups", root)
		}
	}
	// Records an agent before this change wrote: a private mount's path, and the host's mount.
	old := map[string]*assignment{"/proc/self/fd/6/a.service": a, "/sys/fs/cgroup/c.service": b}
	back := appliedCgroups("/host/sys/fs/cgroup", old)
	if got := slices.Sorted(maps.Keys(back)); !slices.Equal(got, []string{"/host/sys/fs/cgroup/a.service", "/host/sys/fs/cgroup/c.service"}) {
		t.Errorf("an earlier agent's records under the DaemonSet's root: %v", got)
	}
	// Outside the root, a record stays as it is (the agent unassigns what it no longer wants).
	if got := recordCgroups("/sys/fs/cgroup", map[string]*assignment{"/elsewhere/x": a}); got["/elsewhere/x"] != a {
		t.Errorf("a path outside the root recorded as %v", got)
	}
}
