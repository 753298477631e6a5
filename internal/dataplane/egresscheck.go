package dataplane

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
)

// QJump's guarantee on a host needs its egress tree as well as its hook: without the tree (`tc
// qdisc del dev IF root`, or another root put in its place) the program still classifies, marks
// and counts, but level traffic no longer meets strict priority or the cap at R. The hook check
// (attached) cannot see that, so this one looks at what up built: the root qdisc is QJump's HTB
// (514a:), it has the root class and one class per level, and below each level's class is its
// leaf qdisc (5140: to 5147:) of the kind up or the last reload built there, as the record says
// (record.Tree). A leaf deleted by hand leaves the kernel's default FIFO there, and one deleted
// and added again as another kind keeps the handle: either way the level has lost its shaper or
// segmenter. It is a separate check, not part of attached: the hook is still there and runs
// (status says so, and a replacing up puts back the configuration it took down if the new one
// fails), and what to do differs.
//
// Three netlink requests: the device's root qdisc (a get, not a dump), the classes of QJump's HTB
// (the kernel dumps those of one device and one qdisc; HTB says the handle of each leaf class's
// qdisc in the dump), and, the tree being whole so far, the qdiscs, for the leaves' kinds. That is
// a dump of every device's qdiscs in the namespace (the kernel does not filter it by device):
// eight gets of the leaves, each request opening its own socket, cost more when the two were
// measured side by side. The dump grows with the namespace's qdiscs, about 0.6 µs each
// (BenchmarkTreeCheckByQdiscs).
//
// A reload replaces a leaf of another kind by deleting it and adding the new one, under the state
// lock, and writes the record with the new tree after the tree itself; a reader without the
// lock (status, the agent's check every second, its metrics) could fall between the two and see
// a leaf gone, or of a kind its record does not say, that nobody changed by hand, and the agent
// would then build the tree again for nothing. Such readers use treeGoneSettled, which looks
// again holding the lock, record and tree, before it says the tree is gone.

// ErrTreeGone means the egress tree up built is no longer on the device (deleted or replaced by
// hand) while QJump's state and hook are: up without Replace refuses with it. A reload, or up
// with Replace, builds the tree again.
var ErrTreeGone = errors.New("qjump's egress tree is gone")

// treeGone says what became of the egress tree up built on rec's device: "" while the device's
// root is QJump's HTB with its root class and every level's class and leaf, and for a record whose
// up built no tree of this version's shape (an earlier version's); otherwise what is there
// instead. A device that is gone is the hook's to report (attached), not this. It takes no lock
// itself: up and reload call it holding the state lock, other readers use treeGoneSettled.
func treeGone(rec record) string {
	gone, _ := treeGoneAt(rec)
	return gone
}

// treeGoneAt is treeGone that also gives the device's root qdisc as it read it (nil where it did
// not read it, or could not), for a reload that goes on to build the tree again over it.
func treeGoneAt(rec record) (string, *qdiscHead) {
	if !rec.Egress {
		return "", nil
	}
	root, err := rootQdisc(rec.Ifindex)
	switch {
	case errors.Is(err, unix.ENODEV):
		return "", nil
	case err != nil:
		return fmt.Sprintf("its root qdisc could not be read (%v)", err), nil
	case root.handle != htbRoot() || root.kind != "htb":
		what := fmt.Sprintf("%s %x:", root.kind, root.handle>>16)
		if root.handle == 0 {
			what += " (the kernel's default)"
		}
		return fmt.Sprintf("the root qdisc is %s, not QJump's htb %x: (deleted or replaced by hand)", what, htbMajor), &root
	}
	return classesGone(rec.Ifindex, rec.Tree), &root
}

// classesGone says which of the classes and leaves of QJump's HTB, the device's root, are gone
// or, where the record keeps the tree that was built (built; nil for an earlier version's), of
// another kind than built there: "" when none is.
func classesGone(ifindex int, built *egressPlan) string {
	leaves, err := htbClasses(ifindex)
	if err != nil {
		return unread(fmt.Sprintf("the classes of its htb %x:", htbMajor), err)
	}
	var missing []string
	if _, ok := leaves[htbRootClass()]; !ok {
		missing = append(missing, fmt.Sprintf("root class %s", netlink.HandleStr(htbRootClass())))
	}
	for l := model.NumLevels - 1; l >= 0; l-- {
		leaf, ok := leaves[htbClassID(l)]
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("level %d's class %s", l, netlink.HandleStr(htbClassID(l))))
		case leaf != leafHandle(l):
			missing = append(missing, fmt.Sprintf("level %d's leaf qdisc %x:", l, leafHandle(l)>>16))
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("QJump's htb %x: has lost its %s (deleted by hand)", htbMajor, strings.Join(missing, ", "))
	}
	if built == nil {
		return ""
	}
	return leavesReplaced(ifindex, *built)
}

// leavesReplaced says which of the levels' leaf qdiscs, each at its handle (classesGone looked),
// is not of the kind up or reload built there (built, the record's): one deleted by hand and
// another kind added with the same handle (the kernel changes no qdisc into another kind in
// place). "" when all are.
func leavesReplaced(ifindex int, built egressPlan) string {
	found, err := leafQdiscs(ifindex)
	if err != nil {
		return unread(fmt.Sprintf("the leaf qdiscs of its htb %x:", htbMajor), err)
	}
	var replaced []string
	for l := model.NumLevels - 1; l >= 0; l-- {
		kind := built.Levels[l].Kind
		got, want := found[leafHandle(l)], kind.qdisc()
		switch {
		case got == "": // deleted since the classes were read
			replaced = append(replaced, fmt.Sprintf("level %d's leaf qdisc %x: is gone (deleted by hand)", l, leafHandle(l)>>16))
		case got != want:
			replaced = append(replaced, fmt.Sprintf("level %d's leaf qdisc %x: is a %s put there by hand, not QJump's %s (%s)",
				l, leafHandle(l)>>16, got, kind, want))
		}
	}
	return strings.Join(replaced, ", ")
}

// unread is what the check says of what it failed to read: nothing for a device that is gone (the
// hook's check reports that), else that it could not be read.
func unread(what string, err error) string {
	if errors.Is(err, unix.ENODEV) {
		return ""
	}
	return fmt.Sprintf("%s could not be read (%v)", what, err)
}

// treeGoneSettled is treeGone for a reader that does not hold the state lock. The look without the
// lock costs nothing more when the tree is whole, the usual case; what it finds missing is looked
// at again holding the lock, on the record as it is then, so that what an up, reload or down was
// changing when the first look fell in the middle of it is over (and, for a reload, whole again).
// It waits for the lock as they do: for as long as the holder changes the device. A record gone
// meanwhile (a down) leaves the first look's answer: the next reading finds the device not up.
func treeGoneSettled(p paths, rec record) string {
	gone := treeGone(rec)
	if gone == "" {
		return ""
	}
	beforeTreeRecheck()
	_ = withState(p.root, false, func() error {
		again, err := readRecord(p)
		if err == nil {
			gone = treeGone(again)
		}
		return nil
	})
	return gone
}

// beforeTreeRecheck runs when treeGoneSettled has found something missing without the lock and is
// about to take it: a test's seam, to know that a look fell inside a reload.
var beforeTreeRecheck = func() {}

type qdiscHead struct {
	handle uint32
	kind   string
}

// rootQdisc asks the kernel for the device's root qdisc alone (RTM_GETQDISC without a dump, whose
// answer is one message; a dump would list the qdiscs of every device in the namespace). The
// kernel sends a get's answer as a tc notification, to the asker only with NLM_F_ECHO.
func rootQdisc(ifindex int) (qdiscHead, error) {
	req := nl.NewNetlinkRequest(unix.RTM_GETQDISC, unix.NLM_F_ECHO)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(ifindex), Parent: netlink.HANDLE_ROOT})
	msgs, err := req.Execute(unix.NETLINK_ROUTE, unix.RTM_NEWQDISC)
	if err != nil {
		return qdiscHead{}, err
	}
	if len(msgs) != 1 {
		return qdiscHead{}, fmt.Errorf("%d answers to a get of the root qdisc", len(msgs))
	}
	return qdiscHeadOf(msgs[0])
}

// leafQdiscs gives the kind of each qdisc whose parent is a class of QJump's HTB on the device, by
// handle. The kernel dumps the qdiscs of every device in the namespace (it does not filter by the
// request's device); those of others are left out here.
func leafQdiscs(ifindex int) (map[uint32]string, error) {
	req := nl.NewNetlinkRequest(unix.RTM_GETQDISC, unix.NLM_F_DUMP)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(ifindex)})
	msgs, err := req.Execute(unix.NETLINK_ROUTE, unix.RTM_NEWQDISC)
	if err != nil {
		return nil, err
	}
	kinds := map[uint32]string{}
	for _, m := range msgs {
		if tc := nl.DeserializeTcMsg(m); int(tc.Ifindex) != ifindex || tc.Parent>>16 != htbMajor {
			continue
		}
		q, err := qdiscHeadOf(m)
		if err != nil {
			return nil, err
		}
		kinds[q.handle] = q.kind
	}
	return kinds, nil
}

// qdiscHeadOf reads the handle and kind of the qdisc in a RTM_NEWQDISC message.
func qdiscHeadOf(msg []byte) (qdiscHead, error) {
	tc := nl.DeserializeTcMsg(msg)
	q := qdiscHead{handle: tc.Handle}
	attrs, err := nl.ParseRouteAttr(msg[tc.Len():])
	if err != nil {
		return q, err
	}
	for _, a := range attrs {
		if a.Attr.Type == nl.TCA_KIND {
			q.kind = strings.TrimRight(string(a.Value), "\x00")
		}
	}
	return q, nil
}

// htbClasses lists the classes of QJump's HTB on the device, each with the handle of the qdisc
// below it (0 for an inner class, such as the root class, and for a leaf class whose qdisc was
// deleted: the kernel's default FIFO in its place has none). The kernel dumps the classes of the
// one qdisc the request names as parent, on the one device it names; HTB puts a leaf class's
// qdisc handle in the message's info (htb_dump_class), as `tc class show` prints "leaf 5147:".
func htbClasses(ifindex int) (map[uint32]uint32, error) {
	req := nl.NewNetlinkRequest(unix.RTM_GETTCLASS, unix.NLM_F_DUMP)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(ifindex), Parent: htbRoot()})
	msgs, err := req.Execute(unix.NETLINK_ROUTE, unix.RTM_NEWTCLASS)
	if err != nil {
		return nil, err
	}
	leaves := map[uint32]uint32{}
	for _, m := range msgs {
		tc := nl.DeserializeTcMsg(m)
		if int(tc.Ifindex) == ifindex && tc.Handle>>16 == htbMajor {
			leaves[tc.Handle] = tc.Info
		}
	}
	return leaves, nil
}
