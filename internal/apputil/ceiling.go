package apputil

import (
	"context"
	"fmt"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// setCeiling sets the dataplane's ceiling for the cgroup at path to max, or clears it when max is
// nil. The ceiling lives in a map every QJump device shares, so it holds on every device QJump is
// up on, including ones brought up later.
func setCeiling(path string, max *model.Level) error {
	if max == nil {
		return clearCeiling(path, dataplane.ClearCgroupCeiling)
	}
	return setCeilingContext(context.Background(), path, max)
}

// setCeilingContext sets the ceiling as setCeiling does, but gives up waiting for the state lock
// when ctx is done (an error that is context.Canceled), having set nothing.
func setCeilingContext(ctx context.Context, path string, max *model.Level) error {
	return dataplane.WithStateLockContext(ctx, func(l dataplane.Locked) error { return setCeilingLocked(l, path, max) })
}

// setCeilingLocked is setCeiling under the state lock, which l holds.
func setCeilingLocked(l dataplane.Locked, path string, max *model.Level) error {
	if max == nil {
		return clearCeiling(path, l.ClearCgroupCeiling)
	}
	if err := l.SetCgroupCeiling(path, *max); err != nil {
		return fmt.Errorf("set level ceiling %d: %w", *max, err)
	}
	return nil
}

// clearCeiling clears the ceiling of the cgroup at path with clear (which takes the state lock,
// or runs under it).
func clearCeiling(path string, clear func(id uint64) error) error {
	id, err := host.CgroupID(path)
	if err != nil {
		return err
	}
	if err := clear(id); err != nil {
		return fmt.Errorf("clear level ceiling: %w", err)
	}
	return nil
}
