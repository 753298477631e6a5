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

// Up saves the device's egress tree and puts QJump's in its place (both modes: strict priority by
// level under a root at R), loads the program, pins it and its maps under bpffs and attaches it to
// the egress of the device. On any error it removes what it created and gives the tree back; a
// tree it could not give back is refused before anything changes.
func Up(opts UpOptions) error {
	p, err := pathsFor(opts.Device)
	if err != nil {
		return err
	}
	return withState(p.root, true, func() error { followRenames(p); return up(p, opts) })
}

// NoDevice is the error of a device name that is no interface in this network namespace.
func NoDevice(name string) error {
	return fmt.Errorf("%w %q in this network namespace", ErrNoDevice, name)
}

// up is Up under the state lock.
func up(p paths, opts UpOptions) (err error) {
	dev, err := netlink.LinkByName(opts.Device)
	if err != nil {
		return NoDevice(opts.Device)
	}
	if err := checkEthernet(dev); err != nil {
		return err
	}
	ifindex := dev.Attrs().Index
	// What the configuration itself could refuse does so before anything changes, the QJump that
	// --replace takes down included.
	plan, err := planEgress(opts.Config, egressDeviceOf(dev))
	if err != nil {
		return err
	}
	rec, err := newRecord(opts.Device, ifindex, opts.Config)
	if err != nil {
		return err
	}
	rec.Generation = 1
	if p.exists() {
		if !opts.Replace {
			return alreadyUp(p, opts.Device)
		}
		if err := down(p); err != nil {
			return err
		}
	} else if o := orphanOn(ifindex); o.found() {
		if !opts.Replace {
			return fmt.Errorf("%w: %s; nothing changed (or use --replace)", ErrLeftOver, o.advice(opts.Device))
		}
		if err := o.remove(); err != nil {
			return fmt.Errorf("remove what QJump left on %s: %w", opts.Device, err)
		}
	}
	pruneDead(p.root)
	// The tree to give back at down, refused here if it could not be given back.
	before, err := snapshotEgress(ifindex, opts.Device)
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			return
		}
		if terr := teardown(p, rec); terr != nil {
			err = fmt.Errorf("%w; and giving back what this up made failed (qjump down --dev %s retries): %w",
				err, opts.Device, terr)
			return
		}
		removeEmpty(p)
	}()
	if err := os.MkdirAll(p.device, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", p.device, err)
	}
	// The record goes first so that a teardown after a failure finds what to undo.
	if err := writeRecord(p, rec); err != nil {
		return err
	}
	if err := takeOver(p, ifindex, before, plan, &rec); err != nil {
		return err
	}
	return load(p, ifindex, opts, &rec)
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
		return fmt.Errorf("%w on %s: nothing changed (use --replace to start over, or reload)", ErrAlreadyUp, device)
	}
	return fmt.Errorf("%w on %s with nothing attached (an earlier up was killed before it finished, or the "+
		"interface was made again): nothing changed; qjump down --dev %s removes it, or use --replace", ErrLeftOver, device, device)
}
