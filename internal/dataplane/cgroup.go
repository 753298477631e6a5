package dataplane

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
)

// ErrNoCgroup2 means no cgroup v2 hierarchy is mounted.
var ErrNoCgroup2 = errors.New("no cgroup v2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified " +
	"(mount one: mount -t cgroup2 none /sys/fs/cgroup/unified)")

// SetCgroupCeiling makes max the highest level any socket of the cgroup may send at, on every
// device QJump is up on, in every network namespace: all programs share one pinned map.
func SetCgroupCeiling(cgroupID uint64, max model.Level) error {
	if max < 0 || max >= model.NumLevels {
		return &model.FieldError{Field: "level", Value: fmt.Sprint(int(max)), Allowed: "need a level from 0 to 7"}
	}
	m, err := openCgroupCeiling(true)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := m.Put(cgroupID, uint8(max)); err != nil {
		return fmt.Errorf("set cgroup ceiling: %w", err)
	}
	return nil
}

// ClearCgroupCeiling removes the ceiling of a cgroup; clearing one that has none is not an error.
func ClearCgroupCeiling(cgroupID uint64) error {
	m, err := openCgroupCeiling(false)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer m.Close()
	if err := m.Delete(cgroupID); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
		return fmt.Errorf("clear cgroup ceiling: %w", err)
	}
	return nil
}

// CgroupID is the cgroup v2 id of the cgroup directory at path: what bpf_skb_cgroup_id returns
// for the sockets of its processes.
func CgroupID(path string) (uint64, error) {
	h, _, err := unix.NameToHandleAt(unix.AT_FDCWD, path, 0)
	if err != nil {
		return 0, fmt.Errorf("cgroup id of %s: %w", path, err)
	}
	if len(h.Bytes()) < 8 {
		return 0, fmt.Errorf("cgroup id of %s: file handle of %d bytes", path, len(h.Bytes()))
	}
	return binary.NativeEndian.Uint64(h.Bytes()), nil
}

// CgroupMount finds where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup on a unified system,
// /sys/fs/cgroup/unified on a hybrid one.
func CgroupMount() (string, error) {
	for _, p := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		if IsCgroup(p) {
			return p, nil
		}
	}
	return "", ErrNoCgroup2
}

// IsCgroup says whether path is a directory of a cgroup v2 hierarchy.
func IsCgroup(path string) bool {
	var st unix.Statfs_t
	return unix.Statfs(path, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC
}

// openCgroupCeiling opens the shared ceiling map, creating and pinning it if create is set and no
// program has yet.
func openCgroupCeiling(create bool) (*ebpf.Map, error) {
	p, err := pathsFor("")
	if err != nil {
		return nil, err
	}
	m, err := ebpf.LoadPinnedMap(p.cgroupCeiling(), nil)
	if err == nil || !create || !errors.Is(err, os.ErrNotExist) {
		if err != nil {
			return nil, fmt.Errorf("open cgroup ceiling map: %w", err)
		}
		return m, nil
	}
	spec, err := loadQjump()
	if err != nil {
		return nil, fmt.Errorf("load qjump spec: %w", err)
	}
	if err := os.MkdirAll(p.root, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", p.root, err)
	}
	return ebpf.NewMapWithOptions(spec.Maps["cgroup_ceiling"], ebpf.MapOptions{PinPath: p.root})
}
