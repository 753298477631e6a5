package dataplane

import (
	"errors"
	"fmt"
	"os"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
)

var (
	// ErrAlreadyUp means the device already runs QJump and Replace was not asked for.
	ErrAlreadyUp = errors.New("qjump is already up")
	// ErrLeftOver means QJump has state for the device and nothing attached to it, and Replace
	// was not asked for: an up was killed before it finished (the state lock says it is not
	// still running), or the interface was deleted and made again under its name.
	ErrLeftOver = errors.New("qjump has state left over")
	// ErrPutBack ends the error of an up with Replace that failed after it took the running
	// configuration down: that configuration runs again, its counters started over.
	ErrPutBack = errors.New("the configuration that ran before runs again (generation 1: its counters start over)")
	// ErrNoDevice means there is no such interface in this network namespace (NoDevice).
	ErrNoDevice = errors.New("no such interface")
)

// UpOptions say what `qjump up` attaches where.
type UpOptions struct {
	Device  string           // interface name in the caller's network namespace
	Config  config.Dataplane // solved and validated (config.Dataplane.Solved)
	Attach  Attach           // auto (TCX, else clsact), tcx or clsact; "" is auto
	Replace bool             // take down a running QJump on Device first
}

// Previous is the QJump configuration that an up with Replace took down: what PutBack restores
// if the caller undoes the up (an interrupted `qjump up --replace`).
type Previous struct {
	Config config.Dataplane
	Attach Attach // the hook it ran on: tcx or clsact
}

// upOptions brings prev up again on device, on its hook.
func (prev Previous) upOptions(device string) UpOptions {
	return UpOptions{Device: device, Config: prev.Config, Attach: prev.Attach}
}

// Up saves the device's egress tree and puts QJump's in its place (both modes: strict priority by
// level under a root at R), loads the program, pins it and its maps under bpffs and attaches it to
// the egress of the device. On any error it removes what it created and gives the tree back; a
// tree it could not give back is refused before anything changes. With Replace, a QJump running
// on the device is taken down first; if the new one then fails, the one it replaced is put back
// (the error says whether that worked), so a failed replace never leaves the device unlimited.
// A successful replace returns what it took down; nil when nothing was running.
func Up(opts UpOptions) (*Previous, error) {
	p, err := pathsFor(opts.Device)
	if err != nil {
		return nil, err
	}
	var prev *Previous
	err = withState(p.root, true, func() error {
		followRenames(p)
		var err error
		prev, err = up(p, opts)
		return err
	})
	return prev, err
}

// PutBack undoes a successful up with Replace: under one hold of the state lock, the new
// configuration is taken down and prev, what Up returned, is brought up again on its hook. Its
// counters start over (generation 1).
func PutBack(device string, prev Previous) error {
	p, err := pathsFor(device)
	if err != nil {
		return err
	}
	return withState(p.root, true, func() error {
		followRenames(p)
		if err := down(p); err != nil {
			return err
		}
		_, err := up(p, prev.upOptions(device))
		return err
	})
}

// NoDevice is the error of a device name that is no interface in this network namespace.
func NoDevice(name string) error {
	return fmt.Errorf("%w %q in this network namespace", ErrNoDevice, name)
}

// up is Up under the state lock.
func up(p paths, opts UpOptions) (prev *Previous, err error) {
	dev, err := netlink.LinkByName(opts.Device)
	if err != nil {
		return nil, NoDevice(opts.Device)
	}
	if err := checkEthernet(dev); err != nil {
		return nil, err
	}
	ifindex := dev.Attrs().Index
	// What the configuration itself could refuse does so before anything changes, the QJump that
	// --replace takes down included.
	plan, err := planEgress(opts.Config, egressDeviceOf(dev))
	if err != nil {
		return nil, err
	}
	// So does a filter QJump's cannot go before, asked for clsact (auto finds out whether it
	// falls back to clsact only as it attaches, and the teardown then gives the device back).
	if opts.Attach == AttachClsact {
		if _, err := filterPref(ifindex, opts.Device); err != nil {
			return nil, err
		}
	}
	rec, err := newRecord(opts.Device, ifindex, opts.Config)
	if err != nil {
		return nil, err
	}
	rec.Generation = 1
	prev, err = makeWay(p, ifindex, opts)
	if err != nil {
		return nil, err
	}
	pruneDead(p.root)
	// The tree to give back at down, refused here if it could not be given back.
	before, err := snapshotEgress(ifindex, opts.Device)
	if err != nil {
		return nil, putBackAfter(p, opts.Device, prev, err)
	}
	defer func() {
		if err == nil {
			return
		}
		if terr := teardown(p, rec); terr != nil {
			err = fmt.Errorf("%w; and giving back what this up made failed (qjump down --dev %s retries): %w",
				err, opts.Device, terr)
			if prev != nil {
				prev, err = nil, fmt.Errorf("%w; the configuration it replaced was not put back", err)
			}
			return
		}
		if prev != nil {
			prev, err = nil, putBackAfter(p, opts.Device, prev, err)
			return
		}
		removeEmpty(p)
	}()
	if err := os.MkdirAll(p.device, 0o700); err != nil {
		return prev, fmt.Errorf("create %s: %w", p.device, err)
	}
	// The record goes first so that a teardown after a failure finds what to undo.
	if err := writeRecord(p, rec); err != nil {
		return prev, err
	}
	if err := takeOver(p, ifindex, before, plan, &rec); err != nil {
		return prev, err
	}
	return prev, load(p, ifindex, opts, &rec)
}

// makeWay clears the device for up: the QJump running on the device, or what one left there, is
// taken down if Replace allows it, and refused otherwise. It returns the configuration it took down if that
// one was attached and running, which a failed up puts back; what is left by a killed up or of a
// deleted interface is nothing worth putting back.
func makeWay(p paths, ifindex int, opts UpOptions) (*Previous, error) {
	if !p.exists() {
		if o := orphanOn(ifindex); o.found() {
			if !opts.Replace {
				return nil, fmt.Errorf("%w: %s; nothing changed (or use --replace)", ErrLeftOver, o.advice(opts.Device))
			}
			if err := o.remove(); err != nil {
				return nil, fmt.Errorf("remove what QJump left on %s: %w", opts.Device, err)
			}
		}
		return nil, removeDebris(p)
	}
	if !opts.Replace {
		return nil, alreadyUp(p, opts.Device)
	}
	var prev *Previous
	if rec, err := readRecord(p); err == nil && attached(p, rec) {
		if d, err := rec.dataplane(); err == nil {
			prev = &Previous{Config: d, Attach: rec.Attach}
		}
	}
	return prev, down(p)
}

// putBackAfter is a replacing up that failed (cause) after it took prev down, with nothing of its
// own left on the device: prev is brought up again on its hook, and the error says so. Without
// prev, the cause alone.
func putBackAfter(p paths, device string, prev *Previous, cause error) error {
	if prev == nil {
		return cause
	}
	if _, err := up(p, prev.upOptions(device)); err != nil {
		return fmt.Errorf("%w; and putting back the configuration that ran before failed, so QJump is not up on %s "+
			"(qjump up puts one on it): %w", cause, device, err)
	}
	return fmt.Errorf("%w; %w", cause, ErrPutBack)
}

// beforeLoad runs when up has written its record and taken over the egress, before the program
// is loaded: where an up that is killed most likely dies (loading takes most of its time). A test
// stops an up there to kill it (TestKilledUpIsLeftOver).
var beforeLoad = func() {}

// load loads, pins and configures the program and attaches it; the egress tree that its classes
// name is already on the device.
func load(p paths, ifindex int, opts UpOptions, rec *record) error {
	beforeLoad()
	objs, err := loadObjects(p.root, encode(opts.Config, rec.Generation, htbClassIDs()), nil)
	if err != nil {
		return err
	}
	defer objs.Close()
	if err := pinAll(objs, p); err != nil {
		return err
	}
	how := opts.Attach
	if how == "" {
		how = AttachAuto
	}
	attachErr := attach(p, ifindex, objs.QjumpEgress, how, rec)
	if err := writeRecord(p, *rec); err != nil {
		return err
	}
	return attachErr
}

// alreadyUp is why up changes nothing on a device that has QJump's state: it runs QJump, or the
// state is all that is left of an earlier up (under the state lock, its process is gone).
func alreadyUp(p paths, device string) error {
	if rec, err := readRecord(p); err == nil && attached(p, rec) {
		if gone := treeGone(rec); gone != "" {
			return fmt.Errorf("%w on %s, but %w: %s; nothing changed (qjump reload --dev %s builds it again, its "+
				"counters kept; or use --replace to start over)", ErrAlreadyUp, device, ErrTreeGone, gone, device)
		}
		return fmt.Errorf("%w on %s: nothing changed (use --replace to start over, or reload)", ErrAlreadyUp, device)
	}
	return fmt.Errorf("%w on %s with nothing attached (an earlier up was killed before it finished, or the "+
		"interface was made again): nothing changed; qjump down --dev %s removes it, or use --replace", ErrLeftOver, device, device)
}
