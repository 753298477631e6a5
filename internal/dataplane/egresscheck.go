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
// (514a:) and it has the root class and one class per level. It is a separate check, not part of
// attached: the hook is still there and runs (status says so, and a replacing up puts back the
// configuration it took down if the new one fails), and what to do differs.
//
// Two netlink requests, neither a dump of every device's qdiscs: the device's root qdisc (a get,
// not a dump) and the classes of QJump's HTB (the kernel dumps those of one device and one qdisc).
// The leaf qdiscs are not looked at: a reload replaces one (delete, then add) under the state lock
// while the agent checks without it, and a check that saw that moment would replace a whole tree.

// ErrTreeGone means the egress tree up built is no longer on the device (deleted or replaced by
// hand) while QJump's state and hook are: a reload has nothing to change, up --replace builds it
// again.
var ErrTreeGone = errors.New("qjump's egress tree is gone")

// treeGone says what became of the egress tree up built on rec's device: "" while the device's
// root is QJump's HTB with its root class and every level's class, and for a record whose up built
// no tree of this version's shape (an earlier version's); otherwise what is there instead. A
// device that is gone is the hook's to report (attached), not this.
func treeGone(rec record) string {
	if !rec.Egress {
		return ""
	}
	root, err := rootQdisc(rec.Ifindex)
	switch {
	case errors.Is(err, unix.ENODEV):
		return ""
	case err != nil:
		return fmt.Sprintf("its root qdisc could not be read (%v)", err)
	case root.handle != htbRoot() || root.kind != "htb":
		what := fmt.Sprintf("%s %x:", root.kind, root.handle>>16)
		if root.handle == 0 {
			what += " (the kernel's default)"
		}
		return fmt.Sprintf("the root qdisc is %s, not QJump's htb %x: (deleted or replaced by hand)", what, htbMajor)
	}
	have, err := htbClasses(rec.Ifindex)
	if errors.Is(err, unix.ENODEV) {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("the classes of its htb %x: could not be read (%v)", htbMajor, err)
	}
	var missing []string
	if !have[htbRootClass()] {
		missing = append(missing, fmt.Sprintf("root class %s", netlink.HandleStr(htbRootClass())))
	}
	for l := model.NumLevels - 1; l >= 0; l-- {
		if id := htbClassID(l); !have[id] {
			missing = append(missing, fmt.Sprintf("level %d's class %s", l, netlink.HandleStr(id)))
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("QJump's htb %x: has lost its %s (deleted by hand)", htbMajor, strings.Join(missing, ", "))
	}
	return ""
}

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
	tc := nl.DeserializeTcMsg(msgs[0])
	q := qdiscHead{handle: tc.Handle}
	attrs, err := nl.ParseRouteAttr(msgs[0][tc.Len():])
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

// htbClasses lists the class ids of QJump's HTB on the device: the kernel dumps the classes of
// the one qdisc the request names as parent, on the one device it names.
func htbClasses(ifindex int) (map[uint32]bool, error) {
	req := nl.NewNetlinkRequest(unix.RTM_GETTCLASS, unix.NLM_F_DUMP)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(ifindex), Parent: htbRoot()})
	msgs, err := req.Execute(unix.NETLINK_ROUTE, unix.RTM_NEWTCLASS)
	if err != nil {
		return nil, err
	}
	have := map[uint32]bool{}
	for _, m := range msgs {
		tc := nl.DeserializeTcMsg(m)
		if int(tc.Ifindex) == ifindex && tc.Handle>>16 == htbMajor {
			have[tc.Handle] = true
		}
	}
	return have, nil
}
