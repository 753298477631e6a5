package host

import (
	"errors"
	"strings"
	"testing"
)

// BPFFS mounts a bpffs only where this mount namespace is known to be the host's; an ancestor
// elsewhere leads to the host's bpffs, and where nothing tells, nothing is mounted.
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
		says      string
	}{
		{"host namespace, nothing mounted", "a", map[int]string{1: "a"}, []int{1}, none, "", ErrBPFFSUnmounted, ""},
		{"ip netns exec under a shell on the host", "b", map[int]string{7: "a"}, []int{7, 1}, hostHas, "/proc/7/root" + DefaultBPFFS, nil, ""},
		{"private, the host has none", "b", map[int]string{7: "a", 1: "a"}, []int{7, 1}, none, "", ErrHostBPFFSUnmounted, "this one is private"},
		{"private, PID 1 in this namespace", "b", map[int]string{7: "a", 1: "b"}, []int{7, 1}, none, "", ErrNoBPFFS, "PID 1's is not readable or is this one"},
		{"private, PID 1 unreadable", "b", map[int]string{7: "a"}, []int{7, 1}, none, "", ErrNoBPFFS, "PID 1's is not readable or is this one"},
		{"PID 1 unreadable, no ancestor elsewhere", "b", map[int]string{}, []int{1}, hostHas, "", ErrNoBPFFS, "cannot be told"},
	} {
		got, err := findHostBPFFS(c.self, c.ancestors, func(pid int) string { return c.ns[pid] }, c.isBPFFS)
		switch {
		case got != c.want || (c.wantErr == nil) != (err == nil) || (err != nil && !errors.Is(err, c.wantErr)):
			t.Errorf("%s: %q, %v; want %q, %v", c.name, got, err, c.want, c.wantErr)
		case err != nil && !strings.Contains(err.Error(), c.says):
			t.Errorf("%s: %v; want it to say %q", c.name, err, c.says)
		case c.wantErr == ErrNoBPFFS && (errors.Is(err, ErrBPFFSUnmounted) || errors.Is(err, ErrHostBPFFSUnmounted)):
			t.Errorf("%s: would mount a bpffs where it may not be the host's", c.name)
		case c.wantErr == ErrHostBPFFSUnmounted && errors.Is(err, ErrBPFFSUnmounted):
			t.Errorf("%s: would mount a bpffs in this private namespace, where it vanishes with the process", c.name)
		}
	}
}
