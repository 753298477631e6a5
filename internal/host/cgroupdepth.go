package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrCgroupNamespace means a cgroup v2 mount shows only part of the hierarchy (a cgroup
// namespace's), so the depth of a cgroup cannot be known from it.
var ErrCgroupNamespace = errors.New("the cgroup v2 mount is not the hierarchy's root (a cgroup namespace?)")

// CgroupDepth is how deep the cgroup directory at path sits in the cgroup v2 hierarchy: 0 for
// the root, 1 for its children, and so on, as bpf_skb_ancestor_cgroup_id counts. It walks up to
// the root of the mount path is on, which must be the hierarchy's root cgroup (id 1): through a
// cgroup namespace's mount the depth would come out short.
func CgroupDepth(path string) (int, error) {
	dir, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	if !IsCgroup(dir) {
		return 0, fmt.Errorf("depth of cgroup %s: not a cgroup v2 directory", path)
	}
	depth := 0
	for parent := filepath.Dir(dir); parent != dir && IsCgroup(parent); parent = filepath.Dir(dir) {
		dir = parent
		depth++
	}
	if id, err := CgroupID(dir); err != nil || id != 1 {
		return 0, fmt.Errorf("depth of cgroup %s: %w: %s", path, ErrCgroupNamespace, dir)
	}
	return depth, nil
}

// OwnCgroup is the cgroup v2 directory of the calling process (the "0::" line of
// /proc/self/cgroup) under the hierarchy's mount.
func OwnCgroup() (string, error) {
	rel, err := OwnCgroupPath()
	if err != nil {
		return "", err
	}
	mount, err := CgroupMount()
	if err != nil {
		return "", err
	}
	return filepath.Join(mount, rel), nil
}

// OwnCgroupPath is the calling process's cgroup v2 path below the hierarchy's root, "/" at the
// root: for a caller that has the hierarchy mounted elsewhere (run's private mount).
func OwnCgroupPath() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rel, ok := strings.CutPrefix(line, "0::"); ok {
			return rel, nil
		}
	}
	return "", ErrNoCgroup2
}
