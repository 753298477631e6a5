package dataplane

import (
	"errors"
	"fmt"
	"math"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// QJump's egress tree, in both modes (docs/dataplane.md, "The egress tree"):
//
//	514a: htb, default: the default level's class (and a filter that says the same, see below)
//	└─ 514a:1 root class at Rcap = rate = ceil (R below the device's speed, else the speed)
//	   ├─ 514a:17 level 7, HTB prio 0, rate 1 B/s, ceil Rcap ─ 5147: leaf qdisc
//	   ├─ ...
//	   └─ 514a:10 level 0, HTB prio 7, rate 1 B/s, ceil Rcap ─ 5140: leaf qdisc
//
// Every leaf's own rate is the least HTB takes, so every byte is borrowed from the root: the root
// is a hard cap, and HTB lends in prio order, which is strict priority by level. The leaf qdisc:
//   - shape mode, limited level: a TBF at the level's rate T = f·P·8/E with a bucket of
//     max((m−1)·f·P, one frame). It emits at most bucket + T·E = m·f·P (+ one frame) in any
//     window of length E; a peak rate of one frame makes it cut GSO packets into frames as they
//     are queued, so every frame is charged its own wire bytes;
//   - otherwise, when the root caps below the device's speed: a TBF far above Rcap whose bucket
//     is one frame, only to cut GSO packets into frames, so a level-7 packet waits behind one
//     lower-level frame rather than a 64 kB super-packet;
//   - otherwise (the root runs at the device's own speed): a pfifo; the NIC segments at line rate.
//
// Rates count wire bytes: every rate spec has overhead 24 and mpu 84 (model.WireBytes).
const (
	htbMajor     = 0x514a // "QJ"
	htbRootMinor = 1
	htbLeafBase  = 0x10
	leafMajor    = 0x5140
)

// TreeMajor is the major number of QJump's HTB and its classes (514a:, 514a:1, 514a:10..17).
const TreeMajor = htbMajor

func htbClassID(l int) uint32 { return htbMajor<<16 | uint32(htbLeafBase+l) }

func htbClassIDs() [model.NumLevels]uint32 {
	var ids [model.NumLevels]uint32
	for l := range ids {
		ids[l] = htbClassID(l)
	}
	return ids
}

func htbRoot() uint32                    { return htbMajor << 16 }
func htbRootClass() uint32               { return htbMajor<<16 | htbRootMinor }
func leafHandle(l int) uint32            { return uint32(leafMajor+l) << 16 }
func leafParent(l int) uint32            { return htbClassID(l) }
func bytesPerSecond(r model.Rate) uint64 { return uint64(math.Ceil(float64(r) / 8)) }

// leafKind is what sits below a level's class.
type leafKind string

const (
	leafShaper    leafKind = "shaper"    // TBF at the level's rate (shape mode, limited level)
	leafSegmenter leafKind = "segmenter" // TBF far above the cap with a one-frame bucket
	leafFIFO      leafKind = "fifo"      // pfifo: the device segments at its own speed
)

// qdisc is the kind of qdisc that the kernel names a leaf of kind k.
func (k leafKind) qdisc() string {
	if k == leafFIFO {
		return "pfifo"
	}
	return "tbf"
}

type leafPlan struct {
	Kind    leafKind
	Rate    uint64 // TBF: bytes/s
	MaxSize uint32 // TBF: bucket in packet bytes (wire bytes less the 24 of overhead)
	Peak    uint64 // TBF: peak rate, bytes/s; 0 for none
	Limit   uint32 // TBF: bytes queued; pfifo: packets
}

// egressDevice is what the tree depends on besides the configuration.
type egressDevice struct {
	Name       string
	MTU        int
	TxQueueLen int
	Speed      model.Rate // 0: unknown
	GSOMaxSize int        // the largest GSO packet the stack hands the device; 0: unknown (64 kB)
}

func egressDeviceOf(l netlink.Link) egressDevice {
	a := l.Attrs()
	return egressDevice{Name: a.Name, MTU: a.MTU, TxQueueLen: a.TxQLen, Speed: deviceSpeed(a.Name),
		GSOMaxSize: int(a.GSOMaxSize)}
}

// defaultGSOMaxSize is the kernel's gso_max_size when a device does not say (GSO_LEGACY_MAX_SIZE).
const defaultGSOMaxSize = 65536

// egressPlan is the whole tree for one configuration on one device, computed and checked before
// anything touches the kernel.
type egressPlan struct {
	Rcap      model.Rate
	Caps      bool   // Rcap is below what the device sends by itself
	Frame     uint32 // the device's largest frame, in packet bytes (skb->len)
	RootBurst uint64 // bytes the root, and each level under its ceiling, may send ahead of Rcap
	Default   model.Level
	Levels    [model.NumLevels]leafPlan
}

// planEgress computes the tree; an error names what cannot be built.
func planEgress(d config.Dataplane, dev egressDevice) (egressPlan, error) {
	rcap, caps := linkCap(d.Model.Rate, dev.Speed)
	frame := uint32(dev.MTU) + uint32(model.EthernetHeader)
	if d.Mark.MarksPCP() {
		frame += uint32(model.VLANTag)
	}
	frameWire := uint64(frame) + uint64(model.FrameOverhead)
	p := egressPlan{Rcap: rcap, Caps: caps, Frame: frame, Default: d.DefaultLevel,
		RootBurst: max(2*frameWire, uint64(float64(rcap)*200e-6/8))}
	// The root's bucket, which each level's ceiling shares, holds at least 200 µs at Rcap, two
	// frames, and, where the leaves pass GSO packets whole (a root at the device's speed), one GSO
	// packet. HTB lets a class that sent more than its bucket holds send again only when its timer
	// has paid the debt back, so a bucket smaller than the packets it serves runs below its rate
	// and, on a level's class, stops the level meanwhile while lower ones go on: a one-frame
	// ceiling bucket held TCP over a 10 Gb/s veth to 6.6 Gb/s where the root alone carried 8.9
	// (`sudo bench/dataplane/htb-buckets`, docs/performance.md, "Throughput").
	if !caps {
		gso := dev.GSOMaxSize
		if gso <= 0 {
			gso = defaultGSOMaxSize
		}
		p.RootBurst = max(p.RootBurst, uint64(gso)+uint64(model.FrameOverhead))
	}
	if rcap < 8 {
		return p, fmt.Errorf("plan egress of %s: rate %s: HTB needs at least 8b/s", dev.Name, rcap)
	}
	queue := uint32(max(dev.TxQueueLen, 64)) // a device without a queue length of its own: 64 frames
	// Far above the cap: a TBF there never holds a frame for long, it only cuts GSO packets.
	fast := bytesPerSecond(max(dev.Speed, 10*rcap))
	for l := range model.NumLevels {
		lp := leafPlan{Kind: leafFIFO, Limit: queue}
		if caps {
			lp = leafPlan{Kind: leafSegmenter, Rate: fast, MaxSize: frame, Limit: queue * frame}
		}
		if f, ok := d.Model.Factors[model.Level(l)]; ok && d.Mode == config.Shape {
			if b, limited := d.Model.Budget(f); limited && d.Model.LevelRate(f) < rcap {
				burst := max(uint64(d.Model.Mesochronous-1)*uint64(b), frameWire)
				// The model's validation refuses such a bucket (calc does too); this is what a
				// configuration that somehow skipped it meets.
				if !model.FitsShaper(float64(burst)) {
					return p, fmt.Errorf("plan egress of %s: level %d: shape mode's bucket, (m-1)·f·P = %s, is more than a TBF holds (%s): "+
						"need a smaller P or factor for level %d, or --mode police", dev.Name, l, model.Bytes(burst), model.Bytes(model.MaxShapedBucket), l)
				}
				maxSize := uint32(burst - uint64(model.FrameOverhead))
				lp = leafPlan{Kind: leafShaper, Rate: max(bytesPerSecond(d.Model.LevelRate(f)), 1), MaxSize: maxSize,
					Peak: fast, Limit: max(queue*frame, 2*maxSize)}
			}
		}
		p.Levels[l] = lp
	}
	return p, nil
}

// String says in a few words what the tree does, for up's output.
func (p egressPlan) String() string {
	s := fmt.Sprintf("root at %s", p.Rcap)
	if !p.Caps {
		s += " (the device's speed)"
	}
	return s
}

func (p egressPlan) rootClass() tcObject {
	r := bytesPerSecond(p.Rcap)
	return htbClass(htbRootClass(), htbRoot(), r, r, p.RootBurst, p.RootBurst, p.Frame, 0)
}

func (p egressPlan) levelClass(l int) tcObject {
	// Rate 1 B/s: every byte is borrowed from the root, in prio order. The ceiling's bucket is
	// the root's, so that only the root decides when a level may send (planEgress says why).
	return htbClass(htbClassID(l), htbRootClass(), 1, bytesPerSecond(p.Rcap), uint64(p.Frame)+uint64(model.FrameOverhead),
		p.RootBurst, p.Frame, uint32(model.TopLevel)-uint32(l))
}

func (p egressPlan) leafQdisc(l int) tcObject {
	lp := p.Levels[l]
	if lp.Kind == leafFIFO {
		return pfifo(leafHandle(l), leafParent(l), lp.Limit)
	}
	return tbf(leafHandle(l), leafParent(l), lp.Rate, lp.MaxSize, lp.Peak, p.Frame, lp.Limit)
}

// defaultFilter classifies what the program did not (nothing it runs on escapes it, but a packet
// sent before the program is attached, or while it is replaced, does). HTB cannot change its own
// default class after it is made (it has no change operation), so a filter that reload can
// replace carries the default level.
func (p egressPlan) defaultFilter() tcObject {
	return classifyAll(htbRoot(), htbClassID(int(p.Default)))
}

// build replaces the device's root qdisc, whatever it is, with the whole tree.
func (p egressPlan) build(ifindex int) error {
	q := htbQdisc(ifindex, uint32(htbLeafBase+int(p.Default)))
	if err := treeChanger(q, ifindex, unix.NLM_F_CREATE|unix.NLM_F_REPLACE); err != nil {
		return fmt.Errorf("add htb qdisc: %w", err)
	}
	if err := treeChanger(p.rootClass(), ifindex, unix.NLM_F_CREATE|unix.NLM_F_EXCL); err != nil {
		return fmt.Errorf("add htb root class: %w", err)
	}
	for l := range model.NumLevels {
		if err := treeChanger(p.levelClass(l), ifindex, unix.NLM_F_CREATE|unix.NLM_F_EXCL); err != nil {
			return fmt.Errorf("add htb class of level %d: %w", l, err)
		}
		if err := treeChanger(p.leafQdisc(l), ifindex, unix.NLM_F_CREATE|unix.NLM_F_REPLACE); err != nil {
			return fmt.Errorf("add %s qdisc of level %d: %w", p.Levels[l].Kind, l, err)
		}
	}
	if err := treeChanger(p.defaultFilter(), ifindex, unix.NLM_F_CREATE|unix.NLM_F_EXCL); err != nil {
		return fmt.Errorf("add default filter: %w", err)
	}
	return nil
}

// rebuild builds p's tree whole in place of whatever root the device has: root, where the caller
// has just read it, else read here. build replaces any other root, but an HTB with QJump's handle
// (what is left of QJump's tree) it would change in place, keeping its classes, and then fail to
// add them: that one is deleted first.
func (p egressPlan) rebuild(ifindex int, root *qdiscHead) error {
	if root == nil {
		read, err := rootQdisc(ifindex)
		if err != nil {
			return fmt.Errorf("read root qdisc: %w", err)
		}
		root = &read
	}
	if root.handle == htbRoot() {
		if err := deleteOwnRoot(ifindex); err != nil {
			return err
		}
	}
	return p.build(ifindex)
}

// treeChanger is how build and apply talk to the kernel; tests replace it to fail on a chosen change.
var treeChanger = func(o tcObject, ifindex, flags int) error { return o.send(ifindex, flags) }

// apply changes the tree on the device from plan from to plan p, touching only what differs. With
// from nil it sets every class, qdisc and filter (after a change that failed half-way, the device
// is in neither plan).
func (p egressPlan) apply(ifindex int, from *egressPlan) error {
	if from == nil || from.Rcap != p.Rcap || from.RootBurst != p.RootBurst || from.Frame != p.Frame {
		if err := treeChanger(p.rootClass(), ifindex, 0); err != nil {
			return fmt.Errorf("change htb root class: %w", err)
		}
		for l := range model.NumLevels {
			if err := treeChanger(p.levelClass(l), ifindex, 0); err != nil {
				return fmt.Errorf("change htb class of level %d: %w", l, err)
			}
		}
	}
	for l := range model.NumLevels {
		if from != nil && from.Levels[l] == p.Levels[l] && from.Frame == p.Frame {
			continue
		}
		if err := p.replaceLeaf(ifindex, l, from); err != nil {
			return err
		}
	}
	if from == nil || from.Default != p.Default {
		if err := treeChanger(p.defaultFilter(), ifindex, unix.NLM_F_CREATE|unix.NLM_F_REPLACE); err != nil {
			return fmt.Errorf("change default filter: %w", err)
		}
	}
	return nil
}

// replaceLeaf puts level l's leaf qdisc of p on the device. A qdisc of the same kind is changed in
// place; the kernel changes no qdisc into one of another kind, so that one is deleted first (the
// class holds HTB's default FIFO in between).
func (p egressPlan) replaceLeaf(ifindex, l int, from *egressPlan) error {
	q := p.leafQdisc(l)
	if from != nil && from.Levels[l].Kind == p.Levels[l].Kind {
		if err := treeChanger(q, ifindex, 0); err != nil {
			return fmt.Errorf("change %s qdisc of level %d: %w", p.Levels[l].Kind, l, err)
		}
		return nil
	}
	del := tcObject{cmd: unix.RTM_DELQDISC, parent: leafParent(l)}
	if err := treeChanger(del, ifindex, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("delete qdisc of level %d: %w", l, err)
	}
	if err := treeChanger(q, ifindex, unix.NLM_F_CREATE|unix.NLM_F_REPLACE); err != nil {
		return fmt.Errorf("add %s qdisc of level %d: %w", p.Levels[l].Kind, l, err)
	}
	return nil
}

// deleteOwnRoot removes QJump's HTB, whatever hangs below it; the kernel then attaches the
// device's default qdisc.
func deleteOwnRoot(ifindex int) error {
	q := netlink.NewHtb(netlink.QdiscAttrs{LinkIndex: ifindex, Handle: netlink.MakeHandle(htbMajor, 0),
		Parent: netlink.HANDLE_ROOT})
	if err := netlink.QdiscDel(q); err != nil && !gone(err) {
		return fmt.Errorf("delete htb qdisc: %w", err)
	}
	return nil
}
