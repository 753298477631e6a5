package dataplane

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// Status is the state of one device running QJump.
type Status struct {
	Device   string
	Attach   Attach
	Attached bool // false when the device or its hook has gone since up, or up did not finish
	// DeviceGone: the interface up ran on is no longer there (deleted, or moved to another network
	// namespace); QJump's state for it stays until a down. Its tree is gone with it, though
	// TreeGone, the tree's own check, says nothing of a device that is not there.
	DeviceGone bool
	// TreeGone says what became of the egress tree up built (strict priority by level under a root
	// at R) when it is no longer on the device as built: deleted or replaced by hand, with the hook
	// still attached. "" while it is there.
	TreeGone string
	// FiltersBefore are the filters that run before QJump's on a clsact egress (added since up:
	// up puts QJump's first) and can take packets past it, uncounted and unlimited. None via TCX.
	FiltersBefore []EgressFilter
	// ProgramsBefore are the programs that run before QJump's on a TCX egress (attached since up:
	// up puts QJump's first) and can take packets past it, uncounted and unlimited. None via clsact.
	ProgramsBefore []EgressProgram
	// FilterPref is the pref of QJump's cls_bpf filter on a clsact egress; 0 via TCX.
	FilterPref uint16
	// UpAs is the name the device had at up when it has been renamed since (Device is its name
	// now); the next up, down or reload moves its state to the new name.
	UpAs       string
	Generation uint64 // 1 after up, +1 per reload
	// Program is the build of the program that runs (ProgramBuild of the qjump that loaded it), ""
	// for one loaded by a version before builds were recorded.
	Program string
	Config  config.Dataplane
	Levels  [model.NumLevels]Counters
}

// ProgramIsThisBuild says whether the program that runs is the one this qjump loads: false after
// an upgrade of qjump, until a reload (or the agent) loads this one.
func (s Status) ProgramIsThisBuild() bool { return s.Program == ProgramBuild() }

// DeviceStatus reads the configuration and counters of one device.
func DeviceStatus(device string) (Status, error) {
	p, err := pathsFor(device)
	if err != nil {
		return Status{}, err
	}
	st, err := statusAt(stateOf(p, device))
	if errors.Is(err, ErrNotUp) {
		if o := orphanNamed(device); o.found() {
			err = fmt.Errorf("%w; %s", err, o.advice(device))
		}
	}
	return st, err
}

// Presence is what is left on a device of what up put there.
type Presence struct {
	Attached bool   // the hook, as Status.Attached
	TreeGone string // what became of the egress tree, as Status.TreeGone; "" while it is there
}

// Pins is where the devices of one network namespace keep their pinned state, found once for
// Pins.Present of each of them.
type Pins struct{ p paths }

// PinsIn finds the pins of the network namespace whose key (host.NetnsKey) is netns, on the bpffs
// that outlives this process (mounting one as up would). Unlike finding the pins for each call (as
// the tests' Present does) it neither checks this process's privilege nor reads its network
// namespace, which together cost about a fifth of a device's Present: the agent, which asks every interface every second (docs/deployment.md),
// checks the one when it starts and reads the other once, since neither changes while it runs,
// and looks for bpffs, which may be mounted anew, once a round.
func PinsIn(netns string) (Pins, error) {
	bpffs, err := host.BPFFS()
	if err != nil {
		return Pins{}, err
	}
	return Pins{pathsIn(bpffs, netns, "")}, nil
}

// Present says whether QJump's hook and egress tree are on device, as DeviceStatus's Attached
// and TreeGone do, without reading its configuration and counters. No netlink event reports a TCX
// link detached. ErrNotUp when QJump has no state for the device.
func (pins Pins) Present(device string) (Presence, error) {
	at := stateOf(pins.p, device)
	rec, err := readRecord(at)
	if err != nil {
		return Presence{}, err
	}
	return Presence{Attached: attached(at, rec), TreeGone: treeGoneSettled(at, rec)}, nil
}

// List is the status of every device QJump is up on in this network namespace, by name.
func List() ([]Status, error) {
	p, err := pathsFor("")
	if err != nil {
		return nil, err
	}
	devices, err := deviceNames(p)
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, dev := range devices {
		st, err := statusAt(p.forDevice(dev))
		if vanished(p.forDevice(dev), err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Device < out[j].Device })
	return out, nil
}

// DeviceConfig is the configuration one device runs now (solved: factors, no target rates).
type DeviceConfig struct {
	Device string
	Config config.Dataplane
}

// ActiveConfigs is the configuration of every device QJump is up on in this network namespace,
// sorted by device. Unlike List it reads no counters and mounts no bpffs (where none is mounted,
// nothing is up): it is cheap enough for the app utility to check its level against.
func ActiveConfigs() ([]DeviceConfig, error) {
	if err := checkPrivilege(); err != nil {
		return nil, err
	}
	bpffs, err := host.FindBPFFS()
	if errors.Is(err, host.ErrBPFFSUnmounted) || errors.Is(err, host.ErrHostBPFFSUnmounted) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p, err := pathsUnder(bpffs, "")
	if err != nil {
		return nil, err
	}
	devices, err := deviceNames(p)
	if err != nil {
		return nil, err
	}
	var out []DeviceConfig
	for _, dev := range devices {
		rec, err := readRecord(p.forDevice(dev))
		if vanished(p.forDevice(dev), err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		d, err := rec.dataplane()
		if err != nil {
			return nil, err
		}
		out = append(out, DeviceConfig{Device: rec.nameNow(), Config: d})
	}
	return out, nil
}

// vanished says whether err, from reading a device's state listed a moment before, is only that an up
// has not written its record yet or a down has just removed it: status and the agent's metrics
// read without the state lock, so as not to wait for (or hold up) an up, and skip such a device
// rather than fail for all the others.
func vanished(p paths, err error) bool {
	if errors.Is(err, ErrNotUp) {
		return true
	}
	if !errors.Is(err, os.ErrNotExist) {
		return false
	}
	_, again := readRecord(p)
	return errors.Is(again, ErrNotUp)
}

func statusAt(p paths) (Status, error) {
	rec, err := readRecord(p)
	if err != nil {
		return Status{}, err
	}
	d, err := rec.dataplane()
	if err != nil {
		return Status{}, err
	}
	st := Status{Device: rec.Device, Attach: rec.Attach, Generation: rec.Generation, Program: rec.Program, Config: d,
		Attached: attached(p, rec), TreeGone: treeGoneSettled(p, rec), DeviceGone: deviceGone(rec.Ifindex)}
	if rec.Attach == AttachClsact {
		st.FilterPref = rec.filterPriority()
	}
	if st.Attached {
		st.FiltersBefore = filtersBefore(rec)
		st.ProgramsBefore = programsBefore(p, rec)
	}
	if now := rec.nameNow(); now != rec.Device {
		st.Device, st.UpAs = now, rec.Device
	}
	m, err := ebpf.LoadPinnedMap(p.pin(pinCounters), nil)
	if errors.Is(err, os.ErrNotExist) && !st.Attached {
		// An up killed before it pinned the program: a device with nothing attached and
		// nothing counted, which down removes.
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("open counters: %w", err)
	}
	defer m.Close()
	if st.Levels, err = readCounters(m); err != nil {
		return st, err
	}
	if d.Mode == config.Shape {
		if held, ok := shaperHeld(rec.Ifindex); ok {
			for l := range st.Levels {
				st.Levels[l].ShapedPackets = held[l]
			}
		}
	}
	return st, nil
}

// TreeOn says whether QJump's egress tree is on the device as up built it: not gone by hand, and
// not gone with the device (status --json's and --watch's egress_tree, the agent's
// qjump_egress_tree; review, helper-82: the two last said 1 for a deleted interface).
func (s Status) TreeOn() bool { return s.TreeGone == "" && !s.DeviceGone }

// deviceGone says whether no interface has the index any longer.
func deviceGone(ifindex int) bool {
	_, err := netlink.LinkByIndex(ifindex)
	var notFound netlink.LinkNotFoundError
	return errors.As(err, &notFound) || errors.Is(err, unix.ENODEV)
}
