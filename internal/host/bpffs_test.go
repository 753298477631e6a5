package host

import (
	"errors"
	"strings"
	"testing"
)

// BPFFS mounts a bpffs only where it can tell the host's mount namespace: here when this is PID
// 1's, in the outermost ancestor's elsewhere when this one is private; an ancestor elsewhere with
// one leads to the host's bpffs, and where nothing tells, nothing is mounted.
func TestFindHostBPFFS(t *testing.T) {
	none := func(string) bool { return false }
	hostHas := func(p string) bool { return p == "/proc/1/root"+DefaultBPFFS || p == "/proc/7/root"+DefaultBPFFS }
	for _, c := range []struct {
		name      string
		self      string
		ns        map[int]string // a process whose namespace cannot be read is absent
		ancestors []int
		isBPFFS   func(string) bool
		want      string
		wantErr   error // nil: none
		mountIn   int   // the pid of a *HostUnmountedError
	}{
		{"host namespace, nothing mounted", "a", map[int]string{1: "a"}, []int{1}, none, "", ErrBPFFSUnmounted, 0},
		{"ip netns exec under a shell on the host", "b", map[int]string{7: "a"}, []int{7, 1}, hostHas, "/proc/7/root" + DefaultBPFFS, nil, 0},
		{"private, the host has none", "b", map[int]string{7: "a", 1: "a"}, []int{7, 1}, none, "", ErrHostBPFFSUnmounted, 1},
		{"private, PID 1 unreadable", "c", map[int]string{9: "c", 7: "b", 5: "a"}, []int{9, 7, 5, 1}, none, "", ErrHostBPFFSUnmounted, 5},
		{"PID 1's namespace, a private ancestor", "b", map[int]string{7: "a", 1: "b"}, []int{7, 1}, none, "", ErrBPFFSUnmounted, 0},
		{"PID 1 unreadable, no ancestor elsewhere", "b", map[int]string{}, []int{1}, hostHas, "", ErrNoBPFFS, 0},
	} {
		got, err := findHostBPFFS(c.self, c.ancestors, func(pid int) string { return c.ns[pid] }, c.isBPFFS)
		var host *HostUnmountedError
		switch {
		case got != c.want || (c.wantErr == nil) != (err == nil) || (err != nil && !errors.Is(err, c.wantErr)):
			t.Errorf("%s: %q, %v; want %q, %v", c.name, got, err, c.want, c.wantErr)
		case c.mountIn != 0 && (!errors.As(err, &host) || host.Pid != c.mountIn):
			t.Errorf("%s: %#v; want it to mount in the namespace of pid %d", c.name, err, c.mountIn)
		case c.wantErr == ErrNoBPFFS && (errors.Is(err, ErrBPFFSUnmounted) || errors.Is(err, ErrHostBPFFSUnmounted)):
			t.Errorf("%s: would mount a bpffs where it cannot tell the host's namespace", c.name)
		case c.wantErr == ErrNoBPFFS && !strings.Contains(err.Error(), "cannot be told"):
			t.Errorf("%s: %v; want it to say the host's namespace cannot be told", c.name, err)
		}
	}
}
