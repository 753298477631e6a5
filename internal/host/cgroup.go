package host

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ErrNoCgroup2 means no cgroup v2 hierarchy is mounted.
var ErrNoCgroup2 = errors.New("no cgroup v2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified " +
	"(mount one: mount -t cgroup2 none /sys/fs/cgroup/unified)")

// CgroupID is the cgroup v2 id of the cgroup directory at path: what bpf_skb_cgroup_id returns
// for the sockets of its processes. A symbolic link at path is followed: the root of a detached
// cgroup v2 mount (apputil.CgroupRoot under ip netns exec) is /proc/self/fd/N, whose own handle,
// procfs's, is no cgroup's.
func CgroupID(path string) (uint64, error) {
	h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		return 0, fmt.Errorf("cgroup id of %s: %w", path, err)
	}
	if len(h.Bytes()) < 8 {
		return 0, fmt.Errorf("cgroup id of %s: file handle of %d bytes", path, len(h.Bytes()))
	}
	return binary.NativeEndian.Uint64(h.Bytes()), nil
}

// CgroupMounts are where hosts mount the cgroup v2 hierarchy: /sys/fs/cgroup on a unified
// system, /sys/fs/cgroup/unified on a hybrid one.
var CgroupMounts = []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}

// CgroupMount finds where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup on a unified system,
// /sys/fs/cgroup/unified on a hybrid one.
func CgroupMount() (string, error) {
	for _, p := range CgroupMounts {
		if IsCgroup(p) {
			return p, nil
		}
	}
	return "", ErrNoCgroup2
}

// IsCgroup says whether path is a directory of a cgroup v2 hierarchy: a cgroup. A file of the
// hierarchy (cgroup.procs) is on cgroup2 too, and is not one.
func IsCgroup(path string) bool {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil || st.Type != unix.CGROUP2_SUPER_MAGIC {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
