package dataplane

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vishvananda/netlink"
)

// QJump's state lives in bpffs, and bpffs can lose it while the device keeps what up put there
// (rm -rf of the pins, a bpffs mounted anew, a container's own bpffs mount): the egress tree under
// QJump's HTB root, and, attached through clsact, the program, which runs on with its budgets.
// Without the state the verbs used to see nothing: down said "nothing to do", up failed on the
// kernel's "add htb qdisc: invalid argument", status listed nothing. Such remains are an orphan:
// down removes them, up refuses them unless --replace, status names them.

// orphan is what QJump put on a device that has no QJump state.
type orphan struct {
	ifindex int
	tree    bool // QJump's HTB is the device's root qdisc
	// filterPref is the pref of QJump's cls_bpf filter on the device's clsact egress, 0 if none:
	// the pref up chose is in the lost record, so the filter is found by its handle and kind.
	filterPref uint16
}

// orphanOn looks for QJump's remains on the device: its root HTB, its cls_bpf filter. Callers ask
// only for a device without state: with state, these are QJump's running tree and hook.
func orphanOn(ifindex int) orphan {
	l := &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Index: ifindex}}
	o := orphan{ifindex: ifindex}
	if qs, err := netlink.QdiscList(l); err == nil {
		for _, q := range qs {
			a := q.Attrs()
			o.tree = o.tree || (a.Parent == netlink.HANDLE_ROOT && a.Handle == netlink.MakeHandle(htbMajor, 0) && q.Type() == "htb")
		}
	}
	if fs, err := netlink.FilterList(l, netlink.HANDLE_MIN_EGRESS); err == nil {
		for _, f := range fs {
			if isQJumpFilter(f) {
				o.filterPref = f.Attrs().Priority
			}
		}
	}
	return o
}

// orphanNamed is orphanOn for the device called name; none if there is no such device.
func orphanNamed(name string) orphan {
	l, err := netlink.LinkByName(name)
	if err != nil {
		return orphan{}
	}
	return orphanOn(l.Attrs().Index)
}

func (o orphan) found() bool { return o.tree || o.filterPref != 0 }

// String names the remains, e.g. "QJump's egress tree (htb 514a:) and its program (cls_bpf filter
// on clsact egress)".
func (o orphan) String() string {
	var parts []string
	if o.tree {
		parts = append(parts, fmt.Sprintf("QJump's egress tree (htb %x:)", htbMajor))
	}
	if o.filterPref != 0 {
		parts = append(parts, "QJump's program (cls_bpf filter on clsact egress)")
	}
	return strings.Join(parts, " and ")
}

// advice is what the user reads about the orphan on device.
func (o orphan) advice(device string) string {
	return fmt.Sprintf("%s has %s but no QJump state (its state under bpffs was removed or is not "+
		"mounted here): qjump down --dev %s removes it", device, o, device)
}

// remove takes the orphan off the device: the filter, then the HTB root, so that the kernel's
// default qdisc comes back. The tree up replaced was in the lost state and cannot be put back;
// a clsact qdisc stays, since whether up added it was in the state too.
func (o orphan) remove() error {
	var err error
	if o.filterPref != 0 {
		if e := netlink.FilterDel(clsactFilter(o.ifindex, o.filterPref)); e != nil && !gone(e) {
			err = fmt.Errorf("delete cls_bpf filter: %w", e)
		}
	}
	if o.tree {
		err = errors.Join(err, deleteOwnRoot(o.ifindex))
	}
	return err
}

// LeftOver describes what QJump left on the device with no state ("" if nothing), for down to
// say what it removed: the same words status uses.
func LeftOver(device string) (string, error) {
	if err := checkPrivilege(); err != nil {
		return "", err
	}
	if o := orphanNamed(device); o.found() {
		return o.String(), nil
	}
	return "", nil
}

// Orphans lists, for every device of this network namespace that has QJump's remains and no
// QJump state, what status tells the user about it.
func Orphans() ([]string, error) {
	p, err := pathsFor("")
	if err != nil {
		return nil, err
	}
	links, err := netlink.LinkList()
	if err != nil {
		return nil, fmt.Errorf("list interfaces: %w", err)
	}
	var out []string
	for _, l := range links {
		name := l.Attrs().Name
		if stateOf(p, name).exists() {
			continue
		}
		if o := orphanOn(l.Attrs().Index); o.found() {
			out = append(out, o.advice(name))
		}
	}
	return out, nil
}
