package publish

// The locks. A staging or aside directory is locked for as long as its run lives, so that another
// run's sweep can tell it from a dead run's; out is locked by one publish at a time.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// makingPrefix names a directory being made (makeLocked), which no sweep takes for another's.
const makingPrefix = ".qjump-making-"

// makeLocked makes a new directory of out named prefix and a unique suffix, already locked
// (lockDir) when it appears under that name: made and locked under that name in two steps, a
// sweep of another run in between (sweepStale, recoverAside) found it unlocked and took it for a
// dead run's. It is made under makingPrefix, locked, and renamed. Where the filesystem has no
// locks (errNoLocks) it is made unlocked, and lock is nil.
func makeLocked(out, prefix string) (dir string, lock *os.File, err error) {
	tmp, err := os.MkdirTemp(out, makingPrefix+"*")
	if err != nil {
		return "", nil, err
	}
	lock, err = lockDir(tmp)
	if err != nil && !errors.Is(err, errNoLocks) {
		_ = os.Remove(tmp)
		return "", nil, fmt.Errorf("lock %s: %w", tmp, err)
	}
	dir = filepath.Join(out, prefix+strings.TrimPrefix(filepath.Base(tmp), makingPrefix))
	if err := renameNoReplace(tmp, dir); err != nil {
		if lock != nil {
			lock.Close()
		}
		_ = os.Remove(tmp)
		return "", nil, err
	}
	return dir, lock, nil
}

// errNoLocks is flock refused for want of locks (noLocks): runs there go on without them, and the
// sweeps decide by pid alone, or not at all (recoverAside). Locks are the kernel's: an output
// directory on a network filesystem shared by runs on two hosts is not guarded across them.
var errNoLocks = errors.New("no locks on this filesystem")

// lockDir opens dir and takes an exclusive flock on it without waiting: held by this process until
// the file is closed or the process dies, which is what the kernel releases it on. A filesystem
// that has no such locks is errNoLocks; one held elsewhere is unix.EWOULDBLOCK.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if noLocks(err) {
			return nil, fmt.Errorf("%w: %v", errNoLocks, err)
		}
		return nil, err
	}
	return f, nil
}

// noLocks says that flock failed for want of locks rather than because another holds one: ENOLCK
// (no lock could be had: the kernel's table, or a network filesystem's lock service), EOPNOTSUPP
// (a filesystem that refuses them), and EBADF, which NFS gives a directory: it emulates flock
// with a byte-range lock, whose exclusive kind needs a file open for writing (flock(2)), which a
// directory never is (review, helper-69: without it every run into an NFS directory failed).
func noLocks(err error) bool {
	return errors.Is(err, unix.ENOLCK) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EBADF)
}

// whileOutLocked runs publish holding out's lock (lockOut); a lock it cannot have keeps the run.
func (s *Staging) whileOutLocked(publish func() error) error {
	unlock, err := lockOut(s.out)
	if err != nil {
		return s.Keep(fmt.Errorf("publish the run into %s: %w", s.out, err))
	}
	defer unlock()
	return publish()
}

// lockOut waits for an exclusive flock on out itself and returns its release: one publish into
// out at a time, from reading the earlier run to the last move. Interleaved, a publish that failed
// moved its earlier run back over the files another had just published, which that one had been
// told were in place, and a partial run read no results.json while another's earlier run was
// aside, and replaced it (review, helper-68). A publish takes milliseconds. Where the filesystem
// has no locks (errNoLocks) there is no such guard.
func lockOut(out string) (unlock func(), err error) {
	f, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	if err := flockWaiting(f, publishWait); err != nil {
		f.Close()
		if noLocks(err) {
			return func() {}, nil
		}
		return nil, fmt.Errorf("lock %s: %w", out, err)
	}
	// The directory locked must be out as it is now: one moved away and replaced by another of its
	// name while this waited would take a publish that another one also takes. (One replaced
	// earlier in the run has none of this run's staging in it: replace refuses that.)
	now, serr := os.Stat(out)
	locked, lerr := f.Stat()
	if serr != nil || lerr != nil || !os.SameFile(now, locked) {
		f.Close()
		return nil, fmt.Errorf("%s was moved or replaced during the run", out)
	}
	return func() { f.Close() }, nil
}

// publishWait is how long a publish waits for another into the same directory: they take
// milliseconds, so one that holds it longer is stopped (Ctrl-Z) or hung.
const publishWait = 30 * time.Second

// flockWaiting takes an exclusive flock on f, trying every 10 ms for at most wait: a blocking
// flock waits for ever behind a stopped process, and Ctrl-C cannot interrupt it.
func flockWaiting(f *os.File, wait time.Duration) error {
	for end := time.Now().Add(wait); ; time.Sleep(10 * time.Millisecond) {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(end) {
			return fmt.Errorf("another run has been publishing into it for %s (stopped?)", wait)
		}
	}
}
