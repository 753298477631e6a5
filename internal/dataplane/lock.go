package dataplane

import (
	"context"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// lockState takes the exclusive lock on QJump's state directory (<bpffs>/qjump) that up, down,
// reload and the ceiling setters hold while they change pinned state or a device's egress. Without
// it, two of them at once on one device each build half of what they mean (two ups both find
// nothing there), and a process that finds the state of an up still under way cannot tell it
// from what an up that was killed left behind. A lock is freed when its holder dies, also by
// SIGKILL, so state found under the lock with nothing attached was left by a process that is gone.
// create makes the directory if it is missing; without it, a missing directory is os.ErrNotExist.
// Down removes the directory when nothing is left in it, perhaps while others wait for the lock:
// a lock taken on a directory that is no longer at the path is taken again on the one that is.
// Waiting for the lock ends with ctx's error when ctx is done first (waitLock).
func lockState(ctx context.Context, root string, create bool) (unlock func(), err error) {
	open := func() (*os.File, error) {
		if create {
			if err := os.MkdirAll(root, 0o700); err != nil {
				return nil, fmt.Errorf("create %s: %w", root, err)
			}
		}
		return os.Open(root)
	}
	dir, err := host.LockAt(root, create, open, func(dir *os.File) error {
		if err := stateDirOwned(dir, root); err != nil {
			dir.Close()
			return err
		}
		if err := waitLock(ctx, dir); err != nil {
			return fmt.Errorf("lock %s: %w", root, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func() { dir.Close() }, nil
}

// stateDirOwned refuses a state directory that is not root's alone (host.OwnedByMe), as the
// directory open at dir is: bpffs mounted with the kernel's default mode (1777, as `mount -t bpf
// bpf /sys/fs/bpf` does) lets any local user make <bpffs>/qjump first, and its owner could then
// hold this lock for ever or move QJump's pins away. MkdirAll makes it 0700 when it is missing.
func stateDirOwned(dir *os.File, root string) error {
	st, err := dir.Stat()
	if err != nil {
		return err
	}
	if err := host.OwnedByMe(root, st); err != nil {
		return fmt.Errorf("QJump's state directory: %w: another local user could hold its lock or move its pins; "+
			"see who made it (ls -ld %s), and remove it (rm -r %s) once no QJump runs on this host", err, root, root)
	}
	return nil
}

// waitLock takes the exclusive flock on dir, or gives up when ctx is done first: a caller that
// can be interrupted (run --mode cgroup waiting to set its ceiling while an up holds the lock)
// must be able to stop waiting to undo what it made. flock itself cannot be abandoned (Go restarts
// it after a signal), so it waits in a goroutine of its own, in turn with the other waiters. A
// wait given up closes dir when that flock returns, which frees the lock if it was got meanwhile.
// On an error dir is closed. With a context that cannot end (Background), ctx.Done() is nil and
// the select waits for the flock alone.
func waitLock(ctx context.Context, dir *os.File) error {
	fd := int(dir.Fd())
	got := make(chan error, 1)
	go func() { got <- unix.Flock(fd, unix.LOCK_EX) }()
	select {
	case err := <-got:
		if err != nil {
			dir.Close()
		}
		return err
	case <-ctx.Done():
		go func() {
			<-got
			dir.Close()
		}()
		return context.Cause(ctx)
	}
}

// withState runs f holding lockState. Without create, where there is no state directory f runs
// without the lock: there is nothing for it to change or to race for, and it says so itself.
func withState(root string, create bool, f func() error) error {
	return withStateContext(context.Background(), root, create, f)
}

// withStateContext is withState whose wait for the lock ends with ctx.
func withStateContext(ctx context.Context, root string, create bool, f func() error) error {
	unlock, err := lockState(ctx, root, create)
	if !create && errors.Is(err, os.ErrNotExist) {
		return f()
	}
	if err != nil {
		return err
	}
	defer unlock()
	return f()
}
