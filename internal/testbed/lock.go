package testbed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// RunDir holds the lock and state files; /run is cleared at boot, as are the namespaces.
var RunDir = "/run/qjump-testbed"

// ErrBusy means another testbed with the same prefix is being built, run or torn down right now,
// or is up: two at once would fight over the same namespaces.
var ErrBusy = errors.New("testbed busy")

// Lock is an exclusive flock on the prefix's lock file, held while the testbed is being built,
// used by an experiment, or torn down. The kernel drops it when the process dies, so a crashed run
// never leaves a stale lock.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock for prefix without waiting. It refuses a prefix CheckPrefix refuses
// before making anything: the raw prefix is part of the lock file's path.
func Acquire(prefix string) (*Lock, error) { return acquire(prefix, unix.LOCK_EX) }

// acquireShared takes the lock for prefix shared, without waiting: for a probe (State.Probe),
// which needs to know only that no maker or remover holds it. Two probes share it: taking it
// whole, a status's probe made another's, or an exec's, find the remains of a killed maker busy,
// and call them in use (review, helper-81). A maker's or remover's whole lock still refuses it.
func acquireShared(prefix string) (*Lock, error) { return acquire(prefix, unix.LOCK_SH) }

// acquire takes the lock for prefix, how being LOCK_EX or LOCK_SH, without waiting.
func acquire(prefix string, how int) (*Lock, error) {
	if err := CheckPrefix(prefix); err != nil {
		return nil, err
	}
	path := filepath.Join(RunDir, prefix+".lock")
	// A holder that removed the file (Remove) between our open and our flock would leave us holding
	// an unlinked inode that nobody else can see: only a lock on the file at path counts.
	f, err := host.LockAt(path, true, func() (*os.File, error) { return openLock(path) }, func(f *os.File) error {
		if err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return fmt.Errorf("%w: another qjump testbed holds %s", ErrBusy, path)
			}
			return fmt.Errorf("lock %s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Lock{f: f, path: path}, nil
}

// probeWait is how long AcquireWaiting tries a lock that is busy: a status probing remains
// (State.Probe) holds it for microseconds, and an up or down that met it then was refused as busy
// (review, helper-78); a testbed truly busy holds it for seconds at least.
const probeWait = 200 * time.Millisecond

// AcquireWaiting is Acquire, trying again for up to probeWait while the lock is busy: for up and
// down, which a status's probe must not turn away.
func AcquireWaiting(prefix string) (*Lock, error) {
	end := time.Now().Add(probeWait)
	for {
		l, err := Acquire(prefix)
		if !errors.Is(err, ErrBusy) || time.Now().After(end) {
			return l, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openLock opens (making it, and RunDir, where missing) the lock file at path. It is root's alone:
// flock needs only an open file, so any user who may read it can hold it and keep the testbed
// busy. One an earlier version made readable by all is closed up here.
func openLock(path string) (*os.File, error) {
	if err := os.MkdirAll(RunDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", RunDir, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	return f, nil
}

// Remove deletes the lock file and drops the lock: for when the testbed is gone.
func (l *Lock) Remove() {
	if l == nil || l.f == nil {
		return
	}
	_ = os.Remove(l.path)
	l.Release()
}

// Release drops the lock.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
	l.f = nil
}
