package host

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// BPFFS mounts a bpffs only in the host's mount namespace: here when this is it, through an
// ancestor in it when this one is private; an ancestor elsewhere with one leads to it, and where
// the host's namespace cannot be told or no ancestor is in it, nothing is mounted.
func TestFindHostBPFFS(t *testing.T) {
	none := func(string) bool { return false }
	hostHas := func(p string) bool { return p == "/proc/1/root"+DefaultBPFFS || p == "/proc/7/root"+DefaultBPFFS }
	for _, c := range []struct {
		name      string
		self      string
		host      string         // the host's namespace ("": cannot be told)
		ns        map[int]string // a process whose namespace cannot be read is absent
		ancestors []int
		isBPFFS   func(string) bool
		want      string
		wantErr   error // nil: none
		mountIn   int   // the pid of a *HostUnmountedError
	}{
		{"host namespace, nothing mounted", "a", "a", map[int]string{1: "a"}, []int{1}, none, "", ErrBPFFSUnmounted, 0},
		{"ip netns exec under a shell on the host", "b", "a", map[int]string{7: "a"}, []int{7, 1}, hostHas, "/proc/7/root" + DefaultBPFFS, nil, 0},
		{"private, the host has none", "b", "a", map[int]string{7: "a", 1: "a"}, []int{7, 1}, none, "", ErrHostBPFFSUnmounted, 7},
		{"private under a private shell, PID 1 unreadable", "c", "a", map[int]string{9: "b", 5: "a"}, []int{9, 5, 1}, none, "", ErrHostBPFFSUnmounted, 5},
		{"private under a private shell, no ancestor in the host's", "c", "a", map[int]string{9: "b"}, []int{9, 1}, none, "", ErrNoBPFFS, 0},
		{"the host's namespace, a private ancestor", "a", "a", map[int]string{7: "b", 5: "a"}, []int{7, 5, 1}, none, "", ErrBPFFSUnmounted, 0},
		{"host cannot be told, a private ancestor", "a", "", map[int]string{7: "b", 5: "a"}, []int{7, 5, 1}, none, "", ErrNoBPFFS, 0},
		{"host cannot be told, no ancestor elsewhere", "b", "", map[int]string{}, []int{1}, hostHas, "", ErrNoBPFFS, 0},
		{"a private ancestor's bpffs is not the host's", "c", "a", map[int]string{9: "b", 7: "a", 1: "a"}, []int{9, 7, 1},
			func(p string) bool { return p == "/proc/9/root"+DefaultBPFFS }, "", ErrHostBPFFSUnmounted, 7},
	} {
		got, err := findHostBPFFS(c.self, c.host, c.ancestors, func(pid int) string { return c.ns[pid] }, c.isBPFFS)
		var host *HostUnmountedError
		switch {
		case got != c.want || (c.wantErr == nil) != (err == nil) || (err != nil && !errors.Is(err, c.wantErr)):
			t.Errorf("%s: %q, %v; want %q, %v", c.name, got, err, c.want, c.wantErr)
		case c.mountIn != 0 && (!errors.As(err, &host) || host.Pid != c.mountIn || host.Namespace != c.host):
			t.Errorf("%s: %#v; want it to mount in the host's namespace through pid %d", c.name, err, c.mountIn)
		case c.wantErr == ErrNoBPFFS && (errors.Is(err, ErrBPFFSUnmounted) || errors.Is(err, ErrHostBPFFSUnmounted)):
			t.Errorf("%s: would mount a bpffs where it may not be the host's", c.name)
		}
	}
}

// Where the host's mount namespace cannot be told, the usual cause is a user who is not root,
// who cannot read PID 1's or kthreadd's: that user is told to run qjump as root, and root is not.
func TestHostUnknownSaysRunAsRoot(t *testing.T) {
	find := func() error {
		_, err := findHostBPFFS("b", "", []int{1}, func(int) string { return "" }, func(string) bool { return false })
		return err
	}
	const advice = "; run qjump as root (this is uid 1000)"
	// By hand: testutil.Set's package imports this one.
	defer func(was func() int) { euid = was }(euid)
	euid = func() int { return 1000 }
	if err := find(); !errors.Is(err, ErrNoBPFFS) || !strings.HasSuffix(err.Error(), advice) {
		t.Errorf("as uid 1000: %v; want ErrNoBPFFS ending %q", err, advice)
	}
	euid = func() int { return 0 }
	if err := find(); !errors.Is(err, ErrNoBPFFS) || strings.Contains(err.Error(), "as root") {
		t.Errorf("as root: %v; want ErrNoBPFFS without advice to run as root", err)
	}
}

// kthreadd is told by the kernel's own flag, which no process can set, and its missing parent.
func TestIsKthreadd(t *testing.T) {
	if comm, err := os.ReadFile("/proc/2/comm"); err != nil || string(comm) != "kthreadd\n" {
		t.Skipf("PID 2 is not kthreadd here (%q, %v): in a PID namespace", comm, err)
	}
	if !isKthreadd(2) {
		t.Error("isKthreadd(2) = false for the kernel's kthreadd")
	}
	if isKthreadd(os.Getpid()) || isKthreadd(1) {
		t.Error("isKthreadd is true for a process")
	}
}
