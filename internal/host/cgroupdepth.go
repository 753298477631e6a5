package host

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrCgroupNamespace means the cgroup v2 mount shows only part of the hierarchy (a cgroup
// namespace's), so the depth of a cgroup cannot be known from it.
var ErrCgroupNamespace = errors.New("the cgroup v2 mount is not the hierarchy's root (a cgroup namespace?)")

// CgroupDepth is how deep the cgroup with this id sits in the cgroup v2 hierarchy: 0 for the
// root, 1 for its children, and so on, as bpf_skb_ancestor_cgroup_id counts. The cgroup is found
// by its id (a file handle of cgroupfs), so the answer holds also if it was renamed. It needs the
// whole hierarchy mounted: the mount's root must be the root cgroup, whose id is 1.
func CgroupDepth(id uint64) (int, error) {
	mount, err := CgroupMount()
	if err != nil {
		return 0, err
	}
	h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, mount, 0)
	if err != nil {
		return 0, fmt.Errorf("cgroup id of %s: %w", mount, err)
	}
	if len(h.Bytes()) < 8 || binary.NativeEndian.Uint64(h.Bytes()) != 1 {
		return 0, fmt.Errorf("depth of cgroup %d: %w: %s", id, ErrCgroupNamespace, mount)
	}
	dir, err := unix.Open(mount, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", mount, err)
	}
	defer unix.Close(dir)
	b := binary.NativeEndian.AppendUint64(nil, id)
	fd, err := unix.OpenByHandleAt(dir, unix.NewFileHandle(h.Type(), b), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return 0, fmt.Errorf("open cgroup %d: %w", id, err)
	}
	defer unix.Close(fd)
	path, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return 0, fmt.Errorf("path of cgroup %d: %w", id, err)
	}
	rel, err := filepath.Rel(mount, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return 0, fmt.Errorf("path of cgroup %d: %s is not under %s", id, path, mount)
	}
	if rel == "." {
		return 0, nil
	}
	return strings.Count(rel, "/") + 1, nil
}

// OwnCgroup is the id and depth of the calling process's cgroup v2 (the "0::" line of
// /proc/self/cgroup).
func OwnCgroup() (id uint64, depth int, err error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rel, ok := strings.CutPrefix(line, "0::"); ok {
			mount, err := CgroupMount()
			if err != nil {
				return 0, 0, err
			}
			if id, err = CgroupID(filepath.Join(mount, rel)); err != nil {
				return 0, 0, err
			}
			depth, err = CgroupDepth(id)
			return id, depth, err
		}
	}
	return 0, 0, ErrNoCgroup2
}
