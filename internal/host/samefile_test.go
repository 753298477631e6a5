package host

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLockAtTakesTheFileAtThePath: the lock file is removed, as its holder does when it is done,
// between LockAt's open and its lock. The lock is then on a file nobody else sees, which the
// agent's, the dataplane's and the testbed's locks each counted for nothing (the testbed's said it
// was busy): LockAt drops it and locks the file made again at the path.
func TestLockAtTakesTheFileAtThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	opens := 0
	open := func() (*os.File, error) {
		opens++
		return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	}
	f, err := LockAt(path, true, open, func(f *os.File) error {
		if opens == 1 {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}
		return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if same, err := sameFile(f, path); !same || opens != 2 {
		t.Errorf("after the removal: the locked file is the one at the path: %v (%v), opens %d; want true and 2", same, err, opens)
	}
	if err := unix.Flock(int(mustOpen(t, path).Fd()), unix.LOCK_EX|unix.LOCK_NB); err != unix.EWOULDBLOCK {
		t.Errorf("another flock of the file at the path: %v, want EWOULDBLOCK: LockAt does not hold it", err)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
