package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// Reload replaces the configuration of a running device atomically: packets see either the old
// or the new one, and budgets restart on the new one. The mode cannot change (shape mode owns an
// HTB tree that police mode does not); in shape mode the HTB rates follow the new budgets first.
func Reload(device string, d config.Dataplane) error {
	p, err := pathsFor(device)
	if err != nil {
		return err
	}
	rec, err := readRecord(p)
	if err != nil {
		return err
	}
	old, err := rec.dataplane()
	if err != nil {
		return err
	}
	if old.Mode != d.Mode {
		return &model.FieldError{Field: "mode", Value: string(d.Mode),
			Allowed: fmt.Sprintf("%s runs %s mode; changing the mode needs qjump down, then up", device, old.Mode)}
	}
	outer, err := ebpf.LoadPinnedMap(p.pin(pinConfig), nil)
	if err != nil {
		return fmt.Errorf("open config map: %w", err)
	}
	defer outer.Close()
	if d.Mode == config.Shape {
		if err := htbClasses(rec.Ifindex, d, netlink.ClassChange); err != nil {
			return err
		}
	}
	next, err := newRecord(rec.Device, rec.Ifindex, d)
	if err != nil {
		return err
	}
	next.Attach, next.ClsactCreated, next.HTB, next.Generation = rec.Attach, rec.ClsactCreated, rec.HTB, rec.Generation+1
	txQueues := 1
	if l, err := netlink.LinkByIndex(rec.Ifindex); err == nil {
		txQueues = l.Attrs().NumTxQueues
	}
	if err := installConfig(outer, encode(d, next.Generation, classIDs(d), txQueues)); err != nil {
		return err
	}
	return writeRecord(p, next)
}
