package dataplane

import (
	"errors"
	"fmt"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// Shape mode's HTB tree on the device: root qdisc htbMajor:, root class htbMajor:1 at the model's
// R (so shape mode also shapes the link), and one leaf per level, htbMajor:(0x10+level), at the
// level's rate f·P·8/E with burst f·P and HTB priority 7-level (HTB serves prio 0 first).
const (
	htbMajor     = 0x514a // "QJ"
	htbRootMinor = 1
	htbLeafBase  = 0x10
)

func htbClassID(l int) uint32 { return htbMajor<<16 | uint32(htbLeafBase+l) }

func htbClassIDs() [model.NumLevels]uint32 {
	var ids [model.NumLevels]uint32
	for l := range ids {
		ids[l] = htbClassID(l)
	}
	return ids
}

// ErrRootQdiscBusy means shape mode cannot put its HTB tree on the device: someone else's root
// qdisc is there, and qjump never replaces what it did not create.
var ErrRootQdiscBusy = errors.New("device has a root qdisc of its own")

// addHTB builds shape mode's tree. It refuses when the device has a root qdisc other than the
// kernel's default (handle 0: noqueue, pfifo_fast, mq), which `down` could not put back.
func addHTB(ifindex int, d config.Dataplane) error {
	l := &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Index: ifindex}}
	qs, err := netlink.QdiscList(l)
	if err != nil {
		return fmt.Errorf("list qdiscs: %w", err)
	}
	for _, q := range qs {
		if a := q.Attrs(); a.Parent == netlink.HANDLE_ROOT && a.Handle != 0 {
			return fmt.Errorf("%w (%s %s): shape mode needs the root; remove it (tc qdisc del dev %s root) or use --mode police",
				ErrRootQdiscBusy, q.Type(), netlink.HandleStr(a.Handle), linkName(ifindex))
		}
	}
	htb := netlink.NewHtb(netlink.QdiscAttrs{LinkIndex: ifindex, Handle: netlink.MakeHandle(htbMajor, 0),
		Parent: netlink.HANDLE_ROOT})
	htb.Defcls = uint32(htbLeafBase + int(d.DefaultLevel))
	if err := netlink.QdiscAdd(htb); err != nil {
		return fmt.Errorf("add htb qdisc: %w", err)
	}
	if err := htbClasses(ifindex, d, netlink.ClassAdd); err != nil {
		_ = delHTB(ifindex)
		return err
	}
	return nil
}

// htbClasses adds (or, for a reload, changes) the root class and one leaf per level.
func htbClasses(ifindex int, d config.Dataplane, apply func(netlink.Class) error) error {
	linkRate := uint64(d.Model.Rate)
	root := netlink.NewHtbClass(netlink.ClassAttrs{LinkIndex: ifindex, Parent: netlink.MakeHandle(htbMajor, 0),
		Handle: netlink.MakeHandle(htbMajor, htbRootMinor)}, netlink.HtbClassAttrs{Rate: linkRate, Ceil: linkRate})
	if err := apply(root); err != nil {
		return fmt.Errorf("htb root class: %w", err)
	}
	for l := range model.NumLevels {
		rate, burst := linkRate, uint32(0)
		if f, ok := d.Model.Factors[model.Level(l)]; ok {
			if b, limited := d.Model.Budget(f); limited {
				rate, burst = uint64(d.Model.LevelRate(f)), uint32(max(int64(b), htbMinBurst))
			}
		}
		c := netlink.NewHtbClass(netlink.ClassAttrs{LinkIndex: ifindex, Parent: netlink.MakeHandle(htbMajor, htbRootMinor),
			Handle: htbClassID(l)}, netlink.HtbClassAttrs{Rate: max(rate, 8), Ceil: max(rate, 8), Buffer: burst,
			Cbuffer: burst, Prio: uint32(model.NumLevels - 1 - l), Quantum: htbQuantum})
		if err := apply(c); err != nil {
			return fmt.Errorf("htb class of level %d: %w", l, err)
		}
	}
	return nil
}

const (
	htbMinBurst = 1600 // a burst below one frame would stall the class
	htbQuantum  = 1600 // levels have distinct priorities, so the DRR quantum hardly matters
)

func delHTB(ifindex int) error {
	q := netlink.NewHtb(netlink.QdiscAttrs{LinkIndex: ifindex, Handle: netlink.MakeHandle(htbMajor, 0),
		Parent: netlink.HANDLE_ROOT})
	if err := netlink.QdiscDel(q); err != nil && !gone(err) {
		return fmt.Errorf("delete htb qdisc: %w", err)
	}
	return nil
}

func linkName(ifindex int) string {
	if l, err := netlink.LinkByIndex(ifindex); err == nil {
		return l.Attrs().Name
	}
	return fmt.Sprintf("ifindex %d", ifindex)
}
