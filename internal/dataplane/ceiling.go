package dataplane

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"os"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// A cgroup's ceiling holds for the cgroup and every cgroup below it, made before or after the
// ceiling was set: the program looks a packet's ceilings up by the ids of its socket's cgroup's
// ancestors (bpf_skb_ancestor_cgroup_id). It asks only at the depths where some cgroup has a
// ceiling, which the loader keeps in the ceiling_depths map, so while no ceiling is set a packet
// pays one load and no lookup.

// ClearCgroupCeiling removes the ceiling of a cgroup; clearing one that has none is not an error.
// The last ceiling cleared on a host where QJump is up nowhere takes the shared maps, and QJump's
// state directory, with it: what `qjump run --max-level` or `assign --max-level` made goes.
func ClearCgroupCeiling(cgroupID uint64) error {
	return ClearCgroupCeilingContext(context.Background(), cgroupID)
}

// ClearCgroupCeilingContext is ClearCgroupCeiling that stops waiting for the state lock when ctx
// is done, clearing nothing (an error that is context.Canceled).
func ClearCgroupCeilingContext(ctx context.Context, cgroupID uint64) error {
	return holdState(ctx, false, func(l Locked) error { return l.ClearCgroupCeiling(cgroupID) })
}

// Locked is QJump's state while WithStateLock holds its lock: changes made through it take turns
// with up, down, reload and every other holder.
type Locked struct{ p paths }

// WithStateLock runs f holding the state lock (lockState), so that a change f makes of its own
// (qjump assign's pins) and of the ceilings through l is one turn: two of them never interleave.
// What is left empty goes as the lock is given up.
func WithStateLock(f func(l Locked) error) error {
	return holdState(context.Background(), true, f)
}

// WithStateLockContext is WithStateLock that stops waiting for the lock when ctx is done (an
// interrupt), returning an error that wraps context.Cause(ctx) without running f.
func WithStateLockContext(ctx context.Context, f func(l Locked) error) error {
	return holdState(ctx, true, f)
}

// holdState is WithStateLock; without create, where there is no state directory f runs without
// the lock (withState), as there is nothing to clear.
func holdState(ctx context.Context, create bool, f func(l Locked) error) error {
	p, err := pathsFor("")
	if err != nil {
		return err
	}
	return withStateContext(ctx, p.root, create, func() error {
		err := f(Locked{p})
		removeEmpty(p) // the last thing under the lock
		return err
	})
}

// SetCgroupCeiling makes max the highest level any socket of the cgroup at path, or of any cgroup
// below it, may send at, on every device QJump is up on, in every network namespace: all programs
// share one pinned map. Nested ceilings combine: the lowest one on a socket's path wins. The path
// gives the cgroup's id and its depth in the hierarchy, which the program needs. The state lock
// is held (WithStateLock).
func (l Locked) SetCgroupCeiling(path string, max model.Level) error {
	if max < 0 || max >= model.NumLevels {
		return &model.FieldError{Field: "level", Value: fmt.Sprint(int(max)), Allowed: "need a level from 0 to 7"}
	}
	id, err := host.CgroupID(path)
	if err != nil {
		return fmt.Errorf("set cgroup ceiling: %w", err)
	}
	depth, err := host.CgroupDepth(path)
	if err != nil {
		return fmt.Errorf("set cgroup ceiling: %w", err)
	}
	if depth >= int(qjumpQjConstantsQJ_CEILING_DEPTHS) {
		// Value is path alone, which a caller that knows the name the user gave replaces.
		return &model.FieldError{Field: "cgroup", Value: path, Allowed: fmt.Sprintf(
			"at depth %d: a ceiling needs a cgroup less than %d levels below the root", depth, qjumpQjConstantsQJ_CEILING_DEPTHS)}
	}
	return onCeilings(l.p, true, func(ceilings, depths *ebpf.Map) error {
		return putCeiling(ceilings, depths, id, max, depth)
	})
}

// ClearCgroupCeiling is ClearCgroupCeiling under a lock already held.
func (l Locked) ClearCgroupCeiling(cgroupID uint64) error {
	err := onCeilings(l.p, false, func(ceilings, depths *ebpf.Map) error {
		if err := ceilings.Delete(cgroupID); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return fmt.Errorf("clear cgroup ceiling: %w", err)
		}
		return syncDepths(ceilings, depths)
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil // no ceiling map: no ceiling
	}
	return err
}

// CgroupCeiling is the ceiling of a cgroup under a lock already held, and whether it has one: what
// an assign that replaces the cgroup's settings had, to say that it removes or changes it.
func (l Locked) CgroupCeiling(cgroupID uint64) (model.Level, bool, error) {
	var c qjumpQjCeiling
	found := false
	err := onCeilings(l.p, false, func(ceilings, _ *ebpf.Map) error {
		err := ceilings.Lookup(cgroupID, &c)
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read cgroup ceiling: %w", err)
		}
		found = true
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil // no ceiling map: no ceiling
	}
	return model.Level(c.Level), found, err
}

// putCeiling sets one ceiling and then the depths the program looks at.
func putCeiling(ceilings, depths *ebpf.Map, id uint64, max model.Level, depth int) error {
	if err := ceilings.Put(id, qjumpQjCeiling{Level: uint8(max), Depth: uint8(depth)}); err != nil {
		return fmt.Errorf("set cgroup ceiling: %w", err)
	}
	return syncDepths(ceilings, depths)
}

// syncDepths makes the depth mask exactly the depths of the ceilings there are: a missing bit
// would skip a ceiling, a stale one costs every packet a lookup. With one depth only, the program
// takes a shorter path, so that depth is written too.
func syncDepths(ceilings, depths *ebpf.Map) error {
	var id uint64
	var c qjumpQjCeiling
	d := qjumpQjDepths{Only: uint32(qjumpQjConstantsQJ_CEILING_DEPTHS)}
	it := ceilings.Iterate()
	for it.Next(&id, &c) {
		d.Mask |= 1 << c.Depth
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("read cgroup ceilings: %w", err)
	}
	if d.Mask != 0 && d.Mask&(d.Mask-1) == 0 {
		d.Only = uint32(bits.TrailingZeros32(d.Mask))
	}
	if err := depths.Put(uint32(0), d); err != nil {
		return fmt.Errorf("write ceiling depths: %w", err)
	}
	return nil
}

// onCeilings opens the shared ceiling maps, runs f on them and closes them.
func onCeilings(p paths, create bool, f func(ceilings, depths *ebpf.Map) error) error {
	var maps [2]*ebpf.Map
	for i, name := range []string{qjumpMapCgroupCeilings, qjumpMapCeilingDepths} {
		m, err := openShared(p, name, create)
		if err != nil {
			return err
		}
		defer m.Close()
		maps[i] = m
	}
	return f(maps[0], maps[1])
}

// openShared opens a map that every program shares, pinned by name under p.root, creating it
// from the program's spec if create is set and no program has yet. A pinned one of another
// build's layout (mapFits) is refused: this build would write ceilings the running programs read
// as something else, or read theirs wrong.
func openShared(p paths, name string, create bool) (*ebpf.Map, error) {
	spec, err := qjumpSpec()
	if err != nil {
		return nil, err
	}
	m, err := ebpf.LoadPinnedMap(p.shared(name), nil)
	if err == nil {
		if err := mapFits(spec.Maps[name], m); err != nil {
			m.Close()
			if errors.Is(err, ebpf.ErrMapIncompatible) {
				return nil, otherBuildCeilings(p, name, err)
			}
			return nil, fmt.Errorf("open %s map: %w", name, err)
		}
		return m, nil
	}
	if !create || !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("open %s map: %w", name, err)
	}
	return ebpf.NewMapWithOptions(spec.Maps[name], ebpf.MapOptions{PinPath: p.root})
}

// otherBuildCeilings is the refusal to read or change ceilings kept in a map another qjump build
// pinned with another layout (err says how it differs).
func otherBuildCeilings(p paths, name string, err error) error {
	return fmt.Errorf("the cgroup ceilings' map %s was pinned by another qjump build (%w): this qjump cannot read or "+
		"change its ceilings; clear them with the qjump that set them, or, with every interface down, remove %s and %s, "+
		"and set them again with this one", p.shared(name), err, p.shared(qjumpMapCgroupCeilings), p.shared(qjumpMapCeilingDepths))
}
