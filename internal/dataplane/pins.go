package dataplane

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// The pinned state of QJump: one directory per network namespace and device under QJump's state
// dir on bpffs, <bpffs>/qjump/<netns key>/<ifname>/, holding the program, its per-device maps,
// the TCX link and the record of what up did; the cgroup ceiling maps are shared, at <bpffs>/qjump.

// Names of the pins in a device's directory.
const (
	pinProg      = "prog"
	pinLink      = "link"
	pinBudget    = "budget"
	pinCounters  = "counters"
	pinDemotions = "demotions"
	pinMeta      = "meta"
	// pinEgress (egress.go) holds the egress tree up found on the device.
)

// paths names where a device's state is pinned: <bpffs>/qjump/<netns cookie>/<ifname>/.
type paths struct {
	root   string // <bpffs>/qjump
	netns  string // <root>/<netns cookie>
	device string // <netns>/<ifname>
}

func pathsFor(dev string) (paths, error) {
	if err := checkPrivilege(); err != nil {
		return paths{}, err
	}
	bpffs, err := host.BPFFS()
	if err != nil {
		return paths{}, err
	}
	return pathsUnder(bpffs, dev)
}

// pathsUnder names the paths of dev in this network namespace on the bpffs mounted at bpffs.
func pathsUnder(bpffs, dev string) (paths, error) {
	ns, err := host.NetnsKey()
	if err != nil {
		return paths{}, err
	}
	return pathsIn(bpffs, ns, dev), nil
}

// pathsIn names the paths of dev in the network namespace whose key (host.NetnsKey) is ns, on the
// bpffs mounted at bpffs.
func pathsIn(bpffs, ns, dev string) paths {
	root := host.StateDirIn(bpffs)
	p := paths{root: root, netns: filepath.Join(root, ns)}
	if dev != "" {
		p.device = filepath.Join(p.netns, dev)
	}
	return p
}

func (p paths) pin(name string) string     { return filepath.Join(p.device, name) }
func (p paths) shared(name string) string  { return filepath.Join(p.root, name) }
func (p paths) forDevice(dev string) paths { p.device = filepath.Join(p.netns, dev); return p }
func (p paths) deviceName() string         { return filepath.Base(p.device) }
func (p paths) exists() bool               { _, err := os.Stat(p.pin(pinMeta)); return err == nil }

// deviceNames lists the devices QJump is up on in p's network namespace, sorted by name (their
// directories under p.netns); none when the namespace has no directory yet.
func deviceNames(p paths) ([]string, error) {
	entries, err := os.ReadDir(p.netns)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list devices: %w", err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// record is what `up` did to a device, pinned beside the program so that `status`, `reload` and
// `down` (other processes, maybe in other mount namespaces) know it. bpffs holds only BPF objects,
// so it lives as JSON in a one-entry array map.
type record struct {
	Device        string `json:"device"`
	Ifindex       int    `json:"ifindex"`
	Attach        Attach `json:"attach"`                   // tcx or clsact
	ClsactCreated bool   `json:"clsact_created,omitempty"` // up added the clsact qdisc
	Egress        bool   `json:"egress,omitempty"`         // up took the egress over; pinEgress holds what was there
	HTB           bool   `json:"htb,omitempty"`            // an earlier version's shape-mode HTB over the default
	Generation    uint64 `json:"generation"`
	Config        string `json:"config"` // the solved configuration, in the file format (YAML)
	// AutoPacket: P is one full frame of the device ("packet: auto"), which Config holds resolved,
	// so that a reload from the running configuration resolves it again (PCP marking turned on
	// makes a frame 4 bytes longer). False in records of versions before it, as for a given P.
	AutoPacket bool `json:"auto_packet,omitempty"`
	// TargetRates are the target rates Config's factors were solved from (bits/s by level), so
	// that a reload that changes the epoch solves them again. Absent in records of versions
	// before it: their factors stay as they are.
	TargetRates map[model.Level]model.Rate `json:"target_rates,omitempty"`
	// Program is the build (ProgramBuild) of the program up or the last reload loaded. Absent in
	// records of versions before it, whose program is an older build than any that writes it.
	Program string `json:"program,omitempty"`
	// Tree is the egress tree that up or the last reload built, as planned for the device as it
	// was then: the tree check compares the leaves' kinds with it (a leaf deleted by hand and
	// another kind added with its handle has the level's handle but not its shaper or segmenter),
	// and a reload changes it into the new one and back, even where the device's speed, which
	// decides FIFO or segmenter, has changed since. Absent in records of versions before it, whose
	// leaves are checked by handle alone and whose tree a reload plans again.
	Tree *egressPlan `json:"tree,omitempty"`
	// FilterPriority is the pref of the cls_bpf filter (clsact), chosen at up to run before every
	// filter on the egress then (filterPref); 0 in records of versions before it, whose filter is
	// at defaultFilterPriority (filterPriority).
	FilterPriority uint16 `json:"filter_priority,omitempty"`
}

// filterPriority is the pref of the device's cls_bpf filter, as recorded or, in a record of a
// version that always used it, the default.
func (r record) filterPriority() uint16 {
	if r.FilterPriority == 0 {
		return defaultFilterPriority
	}
	return r.FilterPriority
}

const recordSize = 8192

var recordSpec = &ebpf.MapSpec{
	Name: "qjump_record", Type: ebpf.Array, KeySize: 4, ValueSize: recordSize, MaxEntries: 1,
}

func (r record) dataplane() (config.Dataplane, error) {
	f, err := config.Parse("pinned record", []byte(r.Config))
	if err != nil {
		return config.Dataplane{}, err
	}
	d := config.Default()
	if err := f.Apply(&d); err != nil {
		return d, err
	}
	d.AutoPacket, d.SolvedRates = r.AutoPacket, r.TargetRates
	return d, nil
}

func newRecord(dev string, ifindex int, d config.Dataplane) (record, error) {
	y, err := config.Marshal(d)
	if err != nil {
		return record{}, fmt.Errorf("encode config: %w", err)
	}
	return record{Device: dev, Ifindex: ifindex, Config: string(y), AutoPacket: d.AutoPacket, TargetRates: d.SolvedRates,
		Program: ProgramBuild()}, nil
}

// writeRecord stores r in the pinned record map of p, creating and pinning the map if needed.
func writeRecord(p paths, r record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if len(data) > recordSize {
		return fmt.Errorf("encode record: %d bytes, more than %d", len(data), recordSize)
	}
	buf := make([]byte, recordSize)
	copy(buf, data)
	m, err := ebpf.LoadPinnedMap(p.pin(pinMeta), nil)
	pinned := err == nil
	if !pinned {
		if m, err = ebpf.NewMap(recordSpec); err != nil {
			return fmt.Errorf("create record map: %w", err)
		}
	}
	defer m.Close()
	if err := m.Put(uint32(0), buf); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	// A new record is pinned once it is written: status, which reads without the lock, must
	// never find an empty one.
	if !pinned {
		if err := m.Pin(p.pin(pinMeta)); err != nil {
			return fmt.Errorf("pin record: %w", err)
		}
	}
	return nil
}

// ErrNotUp means QJump is not attached to the device (in this network namespace).
var ErrNotUp = errors.New("qjump is not up")

func readRecord(p paths) (record, error) {
	var r record
	m, err := ebpf.LoadPinnedMap(p.pin(pinMeta), nil)
	if err != nil {
		return r, fmt.Errorf("%w on %s", ErrNotUp, p.deviceName())
	}
	defer m.Close()
	buf := make([]byte, recordSize)
	// Twice at most: a read beside a reload's write of the record (status reads without the
	// lock) may copy half of each; the second read finds the write done.
	for try := 0; ; try++ {
		if err := m.Lookup(uint32(0), &buf); err != nil {
			return r, fmt.Errorf("read record: %w", err)
		}
		r = record{}
		err := json.Unmarshal(bytes.TrimRight(buf, "\x00"), &r)
		if err == nil {
			return r, nil
		}
		if try == 1 {
			return r, fmt.Errorf("decode record: %w", err)
		}
	}
}

// pruneDead removes the pinned state of devices whose TCX link no longer names a device: the
// device, usually with its whole network namespace, was deleted without `qjump down`. Only the
// pins are left of such a device (the kernel detached the link), and nothing else would ever
// remove them. A device attached through clsact leaves no such trace and is not pruned.
func pruneDead(root string) {
	namespaces, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, ns := range namespaces {
		if !ns.IsDir() || !host.IsNetnsKey(ns.Name()) {
			continue
		}
		nsDir := filepath.Join(root, ns.Name())
		devices, err := os.ReadDir(nsDir)
		if err != nil {
			continue
		}
		for _, dev := range devices {
			dir := filepath.Join(nsDir, dev.Name())
			if tcxLinkDefunct(filepath.Join(dir, pinLink)) {
				_ = os.RemoveAll(dir)
			}
		}
		_ = os.Remove(nsDir) // only if now empty
	}
}

func tcxLinkDefunct(pin string) bool {
	l, err := link.LoadPinnedLink(pin, nil)
	if err != nil {
		return false // no link pinned: clsact, or an up still in progress
	}
	defer l.Close()
	info, err := l.Info()
	return err == nil && info.TCX() != nil && info.TCX().Ifindex == 0
}

// removeEmpty removes the namespace directory once its last device is down and, when no device
// anywhere is up and no cgroup has a ceiling, the shared ceiling map and qjump's directory: down
// leaves bpffs as it was before the first up.
func removeEmpty(p paths) {
	_ = os.Remove(p.netns)
	entries, err := os.ReadDir(p.root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if host.IsNetnsKey(e.Name()) && e.IsDir() {
			return // a network namespace with devices up
		}
	}
	if m, err := ebpf.LoadPinnedMap(p.shared(qjumpMapCgroupCeilings), nil); err == nil {
		var k uint64
		var v qjumpQjCeiling
		// A map whose values this build cannot read (another build's) is not found empty.
		it := m.Iterate()
		empty := !it.Next(&k, &v) && it.Err() == nil
		m.Close()
		if !empty {
			return
		}
	}
	_ = os.Remove(p.shared(qjumpMapCgroupCeilings))
	_ = os.Remove(p.shared(qjumpMapCeilingDepths))
	_ = os.Remove(filepath.Clean(p.root))
}
