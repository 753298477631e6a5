package testbed

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The lock file is its maker's alone: flock needs only a descriptor, so a lock file anyone may
// read is one any local user can hold, keeping every testbed busy. One an earlier version made
// readable by all is closed up when it is taken.
func TestLockFileIsTheMakersAlone(t *testing.T) {
	dir := tempRunDir(t)
	if err := os.WriteFile(filepath.Join(dir, "old.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"fresh", "old"} {
		l, err := Acquire(prefix)
		if err != nil {
			t.Fatalf("acquire %s: %v", prefix, err)
		}
		st, err := os.Stat(filepath.Join(dir, prefix+".lock"))
		if err != nil {
			t.Fatal(err)
		}
		if perm := st.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s.lock: mode %v, want 0600", prefix, perm)
		}
		l.Release()
	}
}

// Acquire refuses a prefix that cannot name a testbed before it makes anything: the prefix is part
// of the lock file's path, so "" made RunDir/.lock and "../../tmp/x" a file outside RunDir.
func TestAcquireRefusesABadPrefix(t *testing.T) {
	dir := tempRunDir(t)
	for _, prefix := range []string{"", "Zq", "../x", "toolongprefix"} {
		if l, err := Acquire(prefix); err == nil {
			l.Remove()
			t.Errorf("Acquire(%q) took a lock, want a refusal", prefix)
		}
	}
	if made, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "*")); len(made) != 1 {
		t.Errorf("refused prefixes made %v beside the run directory", made)
	}
	if made, _ := os.ReadDir(dir); len(made) != 0 {
		t.Errorf("refused prefixes made %v in the run directory", made)
	}
}

// AcquireWaiting, up's and down's, waits out a lock held for a moment (a status probing remains
// holds it for microseconds: an up that met it was refused as busy), and still refuses one held
// for longer than that.
func TestAcquireWaitingOutlastsAProbe(t *testing.T) {
	tempRunDir(t)
	held, err := Acquire("qjfx")
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(20 * time.Millisecond); held.Release() }()
	l, err := AcquireWaiting("qjfx")
	if err != nil {
		t.Fatalf("a lock held for 20 ms: %v; want it taken once free", err)
	}
	start := time.Now()
	if _, err := AcquireWaiting("qjfx"); !errors.Is(err, ErrBusy) || time.Since(start) < probeWait {
		t.Errorf("a lock held throughout: %v after %v; want busy after %v", err, time.Since(start), probeWait)
	}
	l.Release()
}
