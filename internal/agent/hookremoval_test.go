package agent

import (
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// TestTreeRemovalIsATCEvent: the tc events the agent looks at an interface for. The clsact hook's
// removals were; the egress tree's (its root qdisc deleted or replaced, which the kernel reports as
// the old root deleted, and a class of QJump's HTB deleted) were not, so a tree deleted by hand
// stayed gone. A leaf qdisc deleted below one of QJump's classes is one too (by hand, or by a
// reload that replaces it, which the check does not mistake for a gone tree:
// dataplane's TestReloadIsNeverAGoneTree); other devices' classes and qdiscs are not.
func TestTreeRemovalIsATCEvent(t *testing.T) {
	msg := func(handle, parent uint32) []byte {
		return (&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: 7, Handle: handle, Parent: parent}).Serialize()
	}
	for _, tc := range []struct {
		name string
		typ  uint16
		data []byte
		want bool
	}{
		{"egress filter deleted", unix.RTM_DELTFILTER, msg(0x514a, netlink.HANDLE_MIN_EGRESS), true},
		{"clsact qdisc deleted", unix.RTM_DELQDISC, msg(0xffff0000, netlink.HANDLE_CLSACT), true},
		{"root qdisc deleted or replaced", unix.RTM_DELQDISC, msg(0x514a0000, netlink.HANDLE_ROOT), true},
		{"a class of QJump's htb deleted", unix.RTM_DELTCLASS, msg(0x514a0017, 0x514a0001), true},
		{"a leaf qdisc deleted", unix.RTM_DELQDISC, msg(0x51470000, 0x514a0017), true},
		{"another htb's leaf qdisc deleted", unix.RTM_DELQDISC, msg(0x00200000, 0x00010010), false},
		{"another htb's class deleted", unix.RTM_DELTCLASS, msg(0x00010010, 0x00010001), false},
		{"a root qdisc added", unix.RTM_NEWQDISC, msg(0x514a0000, netlink.HANDLE_ROOT), false},
		{"too short", unix.RTM_DELQDISC, []byte{0, 0}, false},
	} {
		ifindex, ok := hookRemoval(tc.typ, tc.data)
		if ok != tc.want || (ok && ifindex != 7) {
			t.Errorf("%s: %d, %v; want %v (interface 7)", tc.name, ifindex, ok, tc.want)
		}
	}
}
