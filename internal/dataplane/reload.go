package dataplane

import (
	"errors"
	"fmt"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// Reload replaces the configuration of a running device atomically: it loads a new copy of the
// program with the new configuration and the device's budget, counter and demotion maps, and
// swaps it into the hook; packets see either the old or the new one. Budgets carry on: what the
// current epoch has sent counts against the new budget. The mode cannot change. The egress tree
// follows the new configuration first: the new tree is computed and checked whole before
// anything changes, and if the kernel refuses any part of it (or the new program cannot be
// swapped in), the old tree is put back, so the device never runs half of each.
func Reload(device string, d config.Dataplane) error { return ReloadFrom(device, 0, d) }

// ErrChangedMeanwhile means the device's configuration changed between the moment a reload read it
// to build on and the moment it would have replaced it.
var ErrChangedMeanwhile = errors.New("the configuration changed meanwhile")

// ReloadFrom is Reload of a configuration made from the device's configuration at generation base
// (read with DeviceStatus; 0 for one made from nothing running, such as a whole file). If another
// reload changed the device since, it changes nothing and returns ErrChangedMeanwhile: replacing
// that reload's configuration with one made from the older one would quietly undo its change.
func ReloadFrom(device string, base uint64, d config.Dataplane) error {
	p, err := pathsFor(device)
	if err != nil {
		return err
	}
	return withState(p.root, false, func() error { followRenames(p); return reload(p, device, base, d) })
}

// reload is ReloadFrom under the state lock.
func reload(p paths, device string, base uint64, d config.Dataplane) error {
	rec, err := readRecord(p)
	if err != nil {
		return err
	}
	if base != 0 && rec.Generation != base {
		return fmt.Errorf("%w: %s is at generation %d, and this reload was made from generation %d "+
			"(another reload ran in between); nothing changed: run it again to build on the new one",
			ErrChangedMeanwhile, device, rec.Generation, base)
	}
	old, err := rec.dataplane()
	if err != nil {
		return err
	}
	if old.Mode != d.Mode {
		return &model.FieldError{Field: "mode", Value: string(d.Mode),
			Allowed: fmt.Sprintf("%s runs %s mode; changing the mode needs qjump down, then up", device, old.Mode)}
	}
	link, err := netlink.LinkByIndex(rec.Ifindex)
	if err != nil {
		return NoDevice(device)
	}
	if gone := treeGone(rec); gone != "" {
		// Its changes would meet classes that are not there, and its rollback the same.
		return fmt.Errorf("%w from %s: %s; nothing changed: qjump up --replace --dev %s with its configuration builds it again",
			ErrTreeGone, device, gone, device)
	}
	dev := egressDeviceOf(link)
	next, err := newRecord(rec.Device, rec.Ifindex, d)
	if err != nil {
		return err
	}
	next.Attach, next.ClsactCreated, next.Egress, next.HTB = rec.Attach, rec.ClsactCreated, rec.Egress, rec.HTB
	next.Generation = rec.Generation + 1
	maps, err := pinnedMaps(p)
	if err != nil {
		return err
	}
	defer closeAll(maps)
	// Loaded (and verified) before anything changes on the device.
	objs, err := loadObjects(p.root, encode(d, next.Generation, htbClassIDs()), maps)
	if err != nil {
		return err
	}
	defer objs.Close()
	install := func() error {
		if err := replaceProgram(p, rec, objs.QjumpEgress); err != nil {
			return err
		}
		return writeRecord(p, next)
	}
	if !rec.Egress {
		return install() // an earlier version's record: its tree is not this version's to change
	}
	return changeTree(rec.Ifindex, old, d, dev, install)
}

// changeTree moves the device's tree from configuration old to d, runs then (installing d), and
// puts old's tree back if either fails.
func changeTree(ifindex int, old, d config.Dataplane, dev egressDevice, then func() error) error {
	from, err := planEgress(old, dev)
	if err != nil {
		return err
	}
	to, err := planEgress(d, dev)
	if err != nil {
		return err
	}
	err = to.apply(ifindex, &from)
	if err == nil {
		err = then()
	}
	if err != nil {
		if rb := from.apply(ifindex, nil); rb != nil {
			return errors.Join(err, fmt.Errorf("put the old egress tree back: %w", rb))
		}
		return fmt.Errorf("%w (the old egress tree is back)", err)
	}
	return nil
}
