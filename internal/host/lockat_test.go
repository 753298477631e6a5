package host

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// A path that can never be made (its directory under a /proc/PID/root whose process is gone) ends
// LockAt with the open's error after a bounded number of tries, instead of spinning for ever.
func TestLockAtGivesUpOnAPathThatCannotBeMade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone", "x.lock")
	opens := 0
	open := func() (*os.File, error) {
		opens++
		return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600) // its directory is missing: ErrNotExist
	}
	done := make(chan error, 1)
	go func() {
		_, err := LockAt(path, true, open, func(*os.File) error { return nil })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, fs.ErrNotExist) || opens != lockTries {
			t.Errorf("LockAt: %v after %d opens; want the open's ErrNotExist after %d", err, opens, lockTries)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LockAt still trying after 10 s")
	}
}
