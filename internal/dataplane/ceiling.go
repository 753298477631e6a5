package dataplane

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/model"
)

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
	spec, err := qjumpSpec()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.root, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", p.root, err)
	}
	return ebpf.NewMapWithOptions(spec.Maps[qjumpMapCgroupCeiling], ebpf.MapOptions{PinPath: p.root})
}
