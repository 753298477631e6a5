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
	// ErrNoDevice means there is no such interface in this network namespace.
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
func Up(opts UpOptions) (err error) {
	p, err := pathsFor(opts.Device)
	if err != nil {
		return err
	}
	dev, err := netlink.LinkByName(opts.Device)
	if err != nil {
		return fmt.Errorf("%w %q in this network namespace", ErrNoDevice, opts.Device)
	}
	if err := checkEthernet(dev); err != nil {
		return err
	}
	if p.exists() {
		if !opts.Replace {
			return fmt.Errorf("%w on %s: nothing changed (use --replace to start over, or reload)", ErrAlreadyUp, opts.Device)
		}
		if err := Down(opts.Device); err != nil {
			return err
		}
	}
	pruneDead(p.root)
	ifindex := dev.Attrs().Index
	// Everything that could refuse does so before anything is created.
	before, err := snapshotEgress(ifindex, opts.Device)
	if err != nil {
		return err
	}
	plan, err := planEgress(opts.Config, egressDeviceOf(dev))
	if err != nil {
		return err
	}
	rec, err := newRecord(opts.Device, ifindex, opts.Config)
	if err != nil {
		return err
	}
	rec.Generation = 1
	defer func() {
		if err != nil {
			_ = teardown(p, rec)
		}
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

// load loads, pins and configures the program and attaches it; the egress tree that its classes
// name is already on the device.
func load(p paths, ifindex int, opts UpOptions, rec *record) error {
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
