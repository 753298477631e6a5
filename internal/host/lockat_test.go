package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// TestMountLockWaitIsBounded: a process that held the bpffs mount lock and never let it go (a
// mount under it that hangs, or no qjump at all) made every qjump that found no bpffs wait behind
// it for ever. The wait is bounded, and the refusal names the lock file and its holder; the lock
// let go is taken at once.
func TestMountLockWaitIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qjump-bpffs.lock")
	wasPath, wasWait := mountLockPath, mountLockWait
	mountLockPath, mountLockWait = path, 300*time.Millisecond
	t.Cleanup(func() { mountLockPath, mountLockWait = wasPath, wasWait })
	held, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := unix.Flock(int(held.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	unlock, err := lockMount()
	took := time.Since(start)
	if err == nil {
		unlock()
		t.Fatal("lockMount took the mount lock that another open file holds")
	}
	holder := fmt.Sprintf("pid %d (host.test)", os.Getpid())
	if !errors.Is(err, ErrNoBPFFS) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), holder) {
		t.Errorf("lockMount with the lock held: %v; want no bpffs, naming %s and its holder, %s", err, path, holder)
	}
	if took < mountLockWait || took > mountLockWait+2*time.Second {
		t.Errorf("lockMount gave up after %v; want after the %v it waits", took, mountLockWait)
	}
	held.Close()
	if unlock, err = lockMount(); err != nil {
		t.Fatalf("lockMount with the lock let go: %v", err)
	}
	unlock()
}
