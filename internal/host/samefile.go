package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// SameFile reports whether the open file f is the one at path now: what a lock taken with flock
// on f is worth, since a holder may have removed (and someone made again) the file at path
// between f's open and its lock. A path with nothing at it is fs.ErrNotExist.
func SameFile(f *os.File, path string) (bool, error) {
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
