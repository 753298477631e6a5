package dataplane

import (
	"fmt"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// Reload replaces the configuration of a running device atomically: it loads a new copy of the
// program with the new configuration and the device's budget, counter and demotion maps, and
// swaps it into the hook; packets see either the old or the new one. Budgets carry on: what the
// current epoch has sent counts against the new budget. The mode cannot change (shape mode owns
// an HTB tree that police mode does not); in shape mode the HTB rates follow the new budgets
// first.
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
	maps, err := pinnedMaps(p)
	if err != nil {
		return err
	}
	defer closeAll(maps)
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
	objs, err := loadObjects(p.root, encode(d, next.Generation, classIDs(d), txQueues), maps)
	if err != nil {
		return err
	}
	defer objs.Close()
	if err := replaceProgram(p, rec, objs.QjumpEgress); err != nil {
		return err
	}
	return writeRecord(p, next)
}
