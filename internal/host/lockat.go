package host

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LockAt takes a lock on the file at path and returns that file, open and locked. open opens the
// file at path (making it, or its directory, first where the caller makes them); lock locks the
// open file, or closes it and says why. Whoever holds the lock may remove the file at path (and
// someone make another there) between the open and the lock, which leaves a lock on a file that
// nobody else sees: a lock counts only on the file at path now, and is otherwise dropped and taken
// again on the one there. With made, open makes what it opens, so a file missing at the open
// (fs.ErrNotExist) was removed since it made it, and is made again; without, that is its error.
// Each is tried again a bounded number of times: a path that can never be made (its directory
// under a /proc/PID/root whose process is gone is missing too) ends with the open's error.
func LockAt(path string, made bool, open func() (*os.File, error), lock func(*os.File) error) (*os.File, error) {
	for try := 1; ; try++ {
		f, err := open()
		if made && errors.Is(err, fs.ErrNotExist) && try < lockTries {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := lock(f); err != nil {
			return nil, err
		}
		same, err := sameFile(f, path)
		if same {
			return f, nil
		}
		f.Close()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if try >= lockTries {
			return nil, fmt.Errorf("lock %s: the file at the path changed every time it was locked (%d times)", path, try)
		}
		// Removed, or another file there now: lock the one at the path.
	}
}

// lockTries bounds LockAt's tries: a holder that removes the file and another that makes it again
// take a few each time, far fewer than this.
const lockTries = 100

// sameFile reports whether the open file f is the one at path now. A path with nothing at it is
// fs.ErrNotExist.
func sameFile(f *os.File, path string) (bool, error) {
	var open, now unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &open); err != nil {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	if err := unix.Stat(path, &now); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return false, fs.ErrNotExist
		}
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	return open.Dev == now.Dev && open.Ino == now.Ino, nil
}

// FlockWithin takes an exclusive flock on f, trying every 10 ms until wait has passed (then
// EWOULDBLOCK). A blocking flock cannot be given a deadline, and one left waiting in a goroutine
// would keep the file open after the refusal and take the lock for nobody.
func FlockWithin(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// LockHolder finds the process holding an exclusive flock on the file at path in /proc/locks
// ("1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters are "1: -> FLOCK ...").
func LockHolder(path string) (pid int, ok bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, false
	}
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[3] != "WRITE" || fields[5] != id {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil {
			return pid, true
		}
	}
	return 0, false
}
