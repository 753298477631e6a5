package dataplane

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
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
//
// An egress tree deleted or replaced by hand (treeGone) is built again whole with the new
// configuration, the budgets and counters carrying on as in any reload: the command that changes
// the configuration leaves QJump whole. If the kernel refuses the new tree or the new program,
// the old configuration's tree is built instead, so QJump is whole either way.
func Reload(device string, d config.Dataplane) error {
	_, err := ReloadFrom(device, 0, d)
	return err
}

// ErrChangedMeanwhile means the device's configuration changed between the moment a reload read it
// to build on and the moment it would have replaced it.
var ErrChangedMeanwhile = errors.New("the configuration changed meanwhile")

// ReloadFrom is Reload of a configuration made from the device's configuration at generation base
// (read with DeviceStatus; 0 for one made from nothing running, such as a whole file). If another
// reload changed the device since, it changes nothing and returns ErrChangedMeanwhile: replacing
// that reload's configuration with one made from the older one would quietly undo its change.
// rebuilt says what had become of the egress tree when the reload found it gone and built it
// again (as treeGone says it); "" when the tree was whole.
func ReloadFrom(device string, base uint64, d config.Dataplane) (rebuilt string, err error) {
	p, err := pathsFor(device)
	if err != nil {
		return "", err
	}
	err = withState(p.root, false, func() error {
		followRenames(p)
		var err error
		rebuilt, err = reload(p, device, base, d)
		return err
	})
	return rebuilt, err
}

// ErrOtherBuildMaps means a reload found the device running another qjump build's program whose
// maps (budgets, counters, demotions) this build's program cannot take over: an upgrade that
// changed their layout. Only a down and up, with new maps, loads this build's.
var ErrOtherBuildMaps = errors.New("the running program's maps are another qjump build's")

// otherBuildMaps is the refusal of a reload that met ErrOtherBuildMaps (the cause in err).
func otherBuildMaps(device, running string, err error) error {
	return fmt.Errorf("%w: %s runs %s, and this qjump's (%s) cannot take over its maps (%w), so its budgets "+
		"and counters cannot carry on through a reload; qjump up --replace --dev %s --config FILE, with the "+
		"configuration it runs (qjump status --dev %s --json gives it as a file's), loads this one with new maps, the "+
		"interface unlimited for the moment between", ErrOtherBuildMaps, device, RunningProgram(running), ProgramBuild(), err, device, device)
}

// otherBuildSharedMaps is the refusal of a reload whose program cannot use the maps every device
// shares (the cgroup ceilings), pinned by another build: no reload, nor a down and up of one
// device, can replace them while another device runs QJump or a cgroup has a ceiling.
func otherBuildSharedMaps(device, running string, err error) error {
	return fmt.Errorf("%s runs %s, and this qjump's (%s) cannot use the cgroup ceilings' maps that every "+
		"interface shares, pinned by another build (%w): the program that runs goes on; this one can run once every "+
		"interface is down and every ceiling cleared (qjump unassign), which removes them", device,
		RunningProgram(running), ProgramBuild(), err)
}

// RunningProgram names the program a device runs by the build its record gives (Status.Program),
// as the refusals of a reload and status's warnings say it: one wording for a program of a
// version that recorded no build, wherever it is met.
func RunningProgram(build string) string {
	switch build {
	case "":
		return "the program of a qjump version that recorded no build (older than this one)"
	case ProgramBuild():
		return "program " + build + " (this qjump's)"
	}
	return "program " + build + " of another qjump build"
}

// reload is ReloadFrom under the state lock.
func reload(p paths, device string, base uint64, d config.Dataplane) (rebuilt string, err error) {
	rec, err := readRecord(p)
	if err != nil {
		return "", err
	}
	if base != 0 && rec.Generation != base {
		return "", fmt.Errorf("%w: %s is at generation %d, and this reload was made from generation %d "+
			"(another reload ran in between); nothing changed: run it again to build on the new one",
			ErrChangedMeanwhile, device, rec.Generation, base)
	}
	old, err := rec.dataplane()
	if err != nil {
		return "", err
	}
	if old.Mode != d.Mode {
		return "", &model.FieldError{Field: "mode", Value: string(d.Mode),
			Allowed: fmt.Sprintf("%s runs %s mode; changing the mode needs qjump down, then up", device, old.Mode)}
	}
	link, err := netlink.LinkByIndex(rec.Ifindex)
	if err != nil {
		return "", NoDevice(device)
	}
	next, err := newRecord(rec.Device, rec.Ifindex, d)
	if err != nil {
		return "", err
	}
	next.Attach, next.ClsactCreated, next.FilterPriority = rec.Attach, rec.ClsactCreated, rec.FilterPriority
	next.Egress, next.HTB = rec.Egress, rec.HTB
	next.Generation = rec.Generation + 1
	// Both trees are known before anything changes: the one that runs as the record keeps it, the
	// new one planned, and the record keeps that for the tree check and the next reload.
	var from, to egressPlan
	if rec.Egress {
		if from, to, err = treesOf(rec, old, d, egressDeviceOf(link)); err != nil {
			return "", err
		}
		next.Tree = &to
	}
	maps, err := pinnedMaps(p)
	if errors.Is(err, os.ErrNotExist) && rec.Program != ProgramBuild() {
		// A map of this build's that the running build's program has not.
		return "", otherBuildMaps(device, rec.Program, err)
	}
	if err != nil {
		return "", err
	}
	defer closeAll(maps)
	if err := deviceMapsFit(maps); errors.Is(err, ebpf.ErrMapIncompatible) {
		return "", otherBuildMaps(device, rec.Program, err)
	} else if err != nil {
		return "", err
	}
	// Loaded (and verified) before anything changes on the device.
	objs, err := loadObjects(p.root, encode(d, next.Generation, htbClassIDs()), maps)
	if errors.Is(err, ebpf.ErrMapIncompatible) {
		// Not the device's maps (deviceMapsFit): the ones every device shares.
		return "", otherBuildSharedMaps(device, rec.Program, err)
	}
	if err != nil {
		return "", err
	}
	defer objs.Close()
	install := func() error { return installProgram(p, rec, next, objs.QjumpEgress) }
	if !rec.Egress {
		return "", install() // an earlier version's record: its tree is not this version's to change
	}
	// Looked at under the lock, as the tree is changed: no up, reload or down is half-way.
	if gone, root := treeGoneAt(rec); gone != "" {
		// A change of what is there would meet classes or leaves that are not, and so would its
		// rollback: the tree is built whole instead, over the root just read.
		return gone, rebuildTree(rec.Ifindex, root, from, to, install)
	}
	return "", changeTree(rec.Ifindex, from, to, install)
}

// changeTree moves the device's tree from plan from (the configuration that runs) to plan to, runs
// then (installing to's configuration), and puts from's tree back if either fails.
func changeTree(ifindex int, from, to egressPlan, then func() error) error {
	err := to.apply(ifindex, &from)
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

// rebuildTree builds to's tree whole on the device in place of what is left of QJump's (deleted or
// replaced by hand) over root, the device's root qdisc (nil: not read), runs then (installing to's
// configuration), and builds from's tree whole if either fails: the device is left with QJump's
// tree of the configuration that runs, never without one, unless building that one fails too (the
// error says so). The root is read again for that: the failed build may have changed it. (It has
// changeTree's shape, but one function given both steps and both messages reads worse: three
// closures and two texts at each call, in reload.)
func rebuildTree(ifindex int, root *qdiscHead, from, to egressPlan, then func() error) error {
	err := to.rebuild(ifindex, root)
	if err == nil {
		err = then()
	}
	if err != nil {
		if rb := from.rebuild(ifindex, nil); rb != nil {
			return errors.Join(err, fmt.Errorf("build the egress tree of the configuration that runs again: %w", rb))
		}
		return fmt.Errorf("%w (the configuration that ran still runs, its egress tree built again)", err)
	}
	return nil
}

// treesOf is the tree that runs (from) and the one of the new configuration d (to), both before
// anything on the device changes. The one that runs is the record's, as it was built; a record of
// a version before it kept the tree is planned again from old, the configuration that runs, and
// a reload that cannot plan its way back does not start.
func treesOf(rec record, old, d config.Dataplane, dev egressDevice) (from, to egressPlan, err error) {
	if rec.Tree != nil {
		from = *rec.Tree
	} else if from, err = planEgress(old, dev); err != nil {
		return from, to, err
	}
	to, err = planEgress(d, dev)
	return from, to, err
}
