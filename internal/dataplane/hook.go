package dataplane

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// The hook: how the program sits on a device's egress, as a TCX link or as a cls_bpf filter on a
// clsact qdisc, and how it comes off again.

// Attach is how the program hooks into the egress path.
type Attach string

const (
	// AttachAuto uses TCX where the kernel has it (6.6+) and clsact otherwise.
	AttachAuto Attach = "auto"
	// AttachTCX is a TCX link, pinned so that it outlives the process that made it.
	AttachTCX Attach = "tcx"
	// AttachClsact is a cls_bpf filter in direct-action mode on a clsact qdisc.
	AttachClsact Attach = "clsact"
)

// filterHandle names qjump's cls_bpf filter among any others on the device's egress, at whatever
// pref it runs (filterPref); defaultFilterPriority is that pref where no other filter runs before
// it, and the one records of versions before the pref was chosen leave unsaid.
const (
	defaultFilterPriority = 0x514a
	filterHandle          = 0x514a
)

// attach hooks prog onto the egress of ifindex and returns how; p.pin(pinLink) keeps a TCX link.
func attach(p paths, ifindex int, prog *ebpf.Program, how Attach, r *record) error {
	if how == AttachAuto || how == AttachTCX {
		err := tcxAttacher(p, ifindex, prog)
		if err == nil || how == AttachTCX || !errors.Is(err, ebpf.ErrNotSupported) {
			r.Attach = AttachTCX
			return err
		}
	}
	pref, err := filterPref(ifindex, r.Device)
	if err != nil {
		return err
	}
	// Recorded before the kernel is asked: an up killed between adding the filter and writing the
	// record would leave a record without a hook, and down would never remove the filter.
	add := !hasClsact(ifindex)
	r.Attach, r.ClsactCreated, r.FilterPriority = AttachClsact, add, pref
	if err := writeRecord(p, *r); err != nil {
		return err
	}
	err = attachClsact(ifindex, prog, pref, add)
	r.ClsactCreated = add && err == nil // a failed attach removed the qdisc it added
	return err
}

// afterFilterAdd runs when the cls_bpf filter is on the device; a test stops an up there to kill
// it (TestKilledUpIsLeftOver).
var afterFilterAdd = func() {}

// tcxAttacher is attachTCX; tests replace it to play a kernel without TCX.
var tcxAttacher = attachTCX

// attachTCX puts the program first among the device's TCX egress programs (link.Head; without an
// anchor the kernel appends it last). A program before it that returns TCX_PASS or TCX_REDIRECT
// ends the run, so QJump would neither count nor limit what that program lets through; QJump
// returns TCX_NEXT for every packet it sends, so the programs after it still run as before. A
// program attached later at the head goes before it again: that is its attacher's choice.
func attachTCX(p paths, ifindex int, prog *ebpf.Program) error {
	l, err := link.AttachTCX(link.TCXOptions{Interface: ifindex, Program: prog, Attach: ebpf.AttachTCXEgress,
		Anchor: link.Head()})
	if err != nil {
		return err // cilium/ebpf says "attach tcx link: ..."
	}
	defer l.Close()
	// Pinned, the link stays attached after this process exits; unpinned it would detach then.
	if err := l.Pin(p.pin(pinLink)); err != nil {
		return fmt.Errorf("pin tcx link: %w", err)
	}
	return nil
}

// attachClsact adds qjump's filter on egress at pref, after adding a clsact qdisc if add says the
// device has none; on failure it removes the qdisc it added. Filters that others put there are
// left alone.
func attachClsact(ifindex int, prog *ebpf.Program, pref uint16, add bool) error {
	if add {
		q := &netlink.GenericQdisc{QdiscAttrs: netlink.QdiscAttrs{LinkIndex: ifindex,
			Handle: netlink.MakeHandle(0xffff, 0), Parent: netlink.HANDLE_CLSACT}, QdiscType: "clsact"}
		if err := netlink.QdiscAdd(q); err != nil {
			return fmt.Errorf("add clsact qdisc: %w", err)
		}
	}
	f := clsactFilter(ifindex, pref)
	f.Fd, f.Name, f.DirectAction = prog.FD(), "qjump", true
	if err := netlink.FilterAdd(f); err != nil {
		if add {
			_ = delClsact(ifindex)
		}
		return fmt.Errorf("add cls_bpf filter: %w", err)
	}
	afterFilterAdd()
	return nil
}

// clsactFilter is qjump's filter on the egress of ifindex at pref, as the kernel finds it to add,
// replace or delete.
func clsactFilter(ifindex int, pref uint16) *netlink.BpfFilter {
	return &netlink.BpfFilter{FilterAttrs: netlink.FilterAttrs{LinkIndex: ifindex,
		Parent: netlink.HANDLE_MIN_EGRESS, Handle: filterHandle, Priority: pref,
		Protocol: unix.ETH_P_ALL}}
}

func hasClsact(ifindex int) bool {
	qs, err := netlink.QdiscList(&netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Index: ifindex}})
	if err != nil {
		return false
	}
	for _, q := range qs {
		if q.Attrs().Parent == netlink.HANDLE_CLSACT && q.Type() == "clsact" {
			return true
		}
	}
	return false
}

func delClsact(ifindex int) error {
	q := &netlink.GenericQdisc{QdiscAttrs: netlink.QdiscAttrs{LinkIndex: ifindex,
		Handle: netlink.MakeHandle(0xffff, 0), Parent: netlink.HANDLE_CLSACT}, QdiscType: "clsact"}
	return netlink.QdiscDel(q)
}

// detach undoes attach. A device that is gone took its hooks with it, which is not an error.
func detach(p paths, r record) error {
	switch r.Attach {
	case AttachTCX:
		l, err := link.LoadPinnedLink(p.pin(pinLink), nil)
		if errors.Is(err, os.ErrNotExist) {
			return nil // never pinned, or already gone
		}
		if err != nil {
			// Not gone: said, rather than taken for gone while the pins go (review, helper-86).
			return fmt.Errorf("load pinned link: %w", err)
		}
		defer l.Close()
		_ = l.Unpin()
		if err := l.Detach(); err != nil && !errors.Is(err, unix.ENODEV) && !errors.Is(err, unix.ENOENT) {
			return err // cilium/ebpf says "detach link: ..."
		}
	case AttachClsact:
		err := netlink.FilterDel(clsactFilter(r.Ifindex, r.filterPriority()))
		if errors.Is(err, unix.EINVAL) && !hasClsact(r.Ifindex) {
			// The clsact qdisc was deleted by hand (tc qdisc del dev IF clsact) and took the filter
			// with it; the kernel refuses to look for a filter on a qdisc that is not there.
			return nil
		}
		if err != nil && !gone(err) {
			return fmt.Errorf("delete cls_bpf filter: %w", err)
		}
		if r.ClsactCreated && !hasFilters(r.Ifindex) {
			if err := delClsact(r.Ifindex); err != nil && !gone(err) {
				return fmt.Errorf("delete clsact qdisc: %w", err)
			}
		}
	}
	return nil
}

// hasFilters reports whether anything else is attached to clsact, in which case the qdisc stays.
func hasFilters(ifindex int) bool {
	l := &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Index: ifindex}}
	for _, parent := range []uint32{netlink.HANDLE_MIN_EGRESS, netlink.HANDLE_MIN_INGRESS} {
		fs, err := netlink.FilterList(l, parent)
		if err == nil && len(fs) > 0 {
			return true
		}
	}
	return false
}

func gone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENODEV)
}

// attached checks that the hook up made is still in place, on the device up found (by ifindex:
// under another name if it has been renamed since, record.nameNow).
func attached(p paths, rec record) bool {
	l, err := netlink.LinkByIndex(rec.Ifindex)
	if err != nil {
		return false
	}
	if rec.Attach == AttachTCX {
		// A TCX link outlives its device while pinned, detached: its info then names no device.
		tl, err := link.LoadPinnedLink(p.pin(pinLink), nil)
		if err != nil {
			return false
		}
		defer tl.Close()
		info, err := tl.Info()
		if err != nil || info.TCX() == nil {
			return false
		}
		return info.TCX().Ifindex == uint32(rec.Ifindex)
	}
	fs, err := netlink.FilterList(l, netlink.HANDLE_MIN_EGRESS)
	if err != nil {
		return false
	}
	for _, f := range fs {
		if isQJumpFilter(f) && f.Attrs().Priority == rec.filterPriority() {
			return true
		}
	}
	return false
}
