package tctree

import (
	"errors"
	"fmt"
	"slices"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// Attribute numbers of a tcmsg (linux/rtnetlink.h).
const (
	tcaKind    = 1
	tcaOptions = 2
	tcaChain   = 11
)

// Snapshot reads the egress configuration of the device with index ifindex, in this network
// namespace.
func Snapshot(ifindex int) (Tree, error) {
	qdiscs, err := dump(unix.RTM_GETQDISC, unix.RTM_NEWQDISC, ifindex, 0)
	if err != nil {
		return Tree{}, fmt.Errorf("list qdiscs: %w", err)
	}
	qdiscs = slices.DeleteFunc(qdiscs, isIngress)
	classes, err := dump(unix.RTM_GETTCLASS, unix.RTM_NEWTCLASS, ifindex, 0)
	if err != nil {
		return Tree{}, fmt.Errorf("list classes: %w", err)
	}
	t := Tree{Objects: append(qdiscs, classes...)}
	// Filters hang on a qdisc or a class; the kernel lists them one parent at a time.
	for _, parent := range t.Objects {
		if parent.Handle == 0 {
			continue
		}
		filters, err := dump(unix.RTM_GETTFILTER, unix.RTM_NEWTFILTER, ifindex, parent.Handle)
		if err != nil {
			return Tree{}, fmt.Errorf("list filters of %s: %w", netlink.HandleStr(parent.Handle), err)
		}
		t.Objects = append(t.Objects, filters...)
	}
	return t, nil
}

// isIngress: the ingress and clsact qdiscs (and what hangs on them) are not egress scheduling.
func isIngress(o Object) bool {
	return o.Parent == netlink.HANDLE_INGRESS
}

func dump(get, reply uint16, ifindex int, parent uint32) ([]Object, error) {
	req := nl.NewNetlinkRequest(int(get), unix.NLM_F_DUMP)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(ifindex), Parent: parent})
	msgs, err := req.Execute(unix.NETLINK_ROUTE, reply)
	if err != nil {
		return nil, err
	}
	kind := map[uint16]Kind{unix.RTM_NEWQDISC: Qdisc, unix.RTM_NEWTCLASS: Class, unix.RTM_NEWTFILTER: Filter}[reply]
	var out []Object
	for _, m := range msgs {
		o, err := decode(kind, m)
		if err != nil {
			return nil, err
		}
		if int(nl.DeserializeTcMsg(m).Ifindex) != ifindex {
			continue
		}
		// A filter dump lists each classifier instance once without a handle (its head) and
		// then its filters: the head is created with its first filter.
		if kind == Filter && o.Handle == 0 {
			continue
		}
		out = append(out, o)
	}
	return out, nil
}

func decode(kind Kind, m []byte) (Object, error) {
	msg := nl.DeserializeTcMsg(m)
	o := Object{Kind: kind, Handle: msg.Handle, Parent: msg.Parent}
	if kind == Filter {
		o.Info = msg.Info
	}
	attrs, err := nl.ParseRouteAttr(m[msg.Len():])
	if err != nil {
		return o, fmt.Errorf("decode %s: %w", kind, err)
	}
	for _, a := range attrs {
		switch a.Attr.Type &^ unix.NLA_F_NESTED { // some kinds dump TCA_OPTIONS flagged as nested
		case tcaKind:
			o.Type = string(a.Value[:max(len(a.Value)-1, 0)])
		case tcaOptions:
			o.Options = slices.Clone(a.Value)
		case tcaChain:
			c := nl.NativeEndian().Uint32(a.Value)
			o.Chain = &c
		}
	}
	return o, nil
}

// Restore makes the egress configuration of ifindex the one in t. It first removes the root qdisc
// the device has now (whatever hangs below it goes with it), so the kernel attaches its default;
// a default t is then complete. Otherwise every object of t is created again, parents first, with
// the options the kernel reported. It checks the result against t and says what differs.
func Restore(ifindex int, t Tree) error {
	if err := deleteRoot(ifindex); err != nil {
		return err
	}
	if !t.Default() {
		if err := replay(ifindex, t); err != nil {
			return err
		}
	}
	got, err := Snapshot(ifindex)
	if err != nil {
		return err
	}
	if d := Diff(t, got); d != "" {
		return fmt.Errorf("restore egress configuration: not re-created:\n%s", d)
	}
	return nil
}

func deleteRoot(ifindex int) error {
	req := nl.NewNetlinkRequest(unix.RTM_DELQDISC, unix.NLM_F_ACK)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(ifindex), Parent: netlink.HANDLE_ROOT})
	_, err := req.Execute(unix.NETLINK_ROUTE, 0)
	// The kernel refuses to delete its own default root (handle 0: ENOENT or EINVAL, by kind),
	// which is already what a restore wants.
	if err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("delete root qdisc: %w", err)
	}
	return nil
}

// replay creates t's objects in an order where every parent exists before its children: the root,
// then in passes whatever's parent is already there. Objects the kernel makes by itself (default
// child qdiscs, the classes of classless-by-configuration kinds like mq) are skipped.
func replay(ifindex int, t Tree) error {
	present := map[uint32]bool{netlink.HANDLE_ROOT: true}
	pending := slices.DeleteFunc(slices.Clone(t.Objects), func(o Object) bool { return implicit(t, o) })
	for len(pending) > 0 {
		var next []Object
		for _, o := range pending {
			if !present[o.Parent] && !(present[o.Parent&0xffff0000] && implicitClassOf(t, o.Parent)) {
				next = append(next, o)
				continue
			}
			if err := create(ifindex, o); err != nil {
				return fmt.Errorf("restore %s: %w", o, err)
			}
			if o.Kind != Filter {
				present[o.Handle] = true
			}
		}
		if len(next) == len(pending) {
			return fmt.Errorf("restore egress configuration: no parent for %s", next[0])
		}
		pending = next
	}
	return nil
}

// implicit says whether the kernel creates o by itself once its parent exists: a qdisc with handle 0
// (a default child) and the classes of a qdisc whose classes are fixed by its kind (mq's TX
// queues, a TBF's single class).
func implicit(t Tree, o Object) bool {
	switch o.Kind {
	case Qdisc:
		return o.Handle == 0 && o.Parent != netlink.HANDLE_ROOT
	case Class:
		owner, ok := qdiscOf(t, o.Handle&0xffff0000)
		return !ok || !userClasses[owner.Type]
	case Filter:
		return isU32Table(o)
	}
	return false
}

// implicitClassOf says whether the class named parent exists as soon as its qdisc does.
func implicitClassOf(t Tree, parent uint32) bool {
	return implicit(t, Object{Kind: Class, Handle: parent})
}

// isU32Table: a u32 hash table (node id 0). The kernel makes the root table of a u32 classifier
// with its first filter; Restorable refuses the others (hashing filters).
func isU32Table(o Object) bool { return o.Type == "u32" && o.Handle&0xfff == 0 }

// userClasses are the qdisc kinds whose classes are created one by one (tc class add).
var userClasses = map[string]bool{"htb": true, "hfsc": true, "drr": true, "qfq": true, "cbq": true}

func qdiscOf(t Tree, handle uint32) (Object, bool) {
	for _, o := range t.Objects {
		if o.Kind == Qdisc && o.Handle == handle {
			return o, true
		}
	}
	return Object{}, false
}

func create(ifindex int, o Object) error {
	cmd := map[Kind]uint16{Qdisc: unix.RTM_NEWQDISC, Class: unix.RTM_NEWTCLASS, Filter: unix.RTM_NEWTFILTER}[o.Kind]
	flags := unix.NLM_F_CREATE | unix.NLM_F_ACK
	if o.Kind == Qdisc {
		flags |= unix.NLM_F_REPLACE // over the default the kernel put there, or a default child
	} else {
		flags |= unix.NLM_F_EXCL
	}
	req := nl.NewNetlinkRequest(int(cmd), flags)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(ifindex), Handle: o.Handle, Parent: o.Parent, Info: o.Info})
	req.AddData(nl.NewRtAttr(tcaKind, nl.ZeroTerminated(o.Type)))
	if o.Options != nil {
		req.AddData(nl.NewRtAttr(tcaOptions, replayOptions(o)))
	}
	if o.Chain != nil {
		req.AddData(nl.NewRtAttr(tcaChain, nl.Uint32Attr(*o.Chain)))
	}
	_, err := req.Execute(unix.NETLINK_ROUTE, 0)
	return err
}
