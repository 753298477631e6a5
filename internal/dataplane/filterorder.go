package dataplane

import (
	"errors"
	"fmt"
	"sort"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/vishvananda/netlink"
)

// The order of the filters on a clsact egress. The kernel runs them by pref, lowest first, and the
// first that matches a packet ends its classification (a u32 filter with a classid, a bpf filter
// in direct-action mode that returns a verdict): a filter before QJump's takes the packets it
// matches past QJump, which then neither counts nor limits them. QJump's program returns
// TC_ACT_UNSPEC for every packet it sends, which lets the filters after it run as they did, so up
// puts QJump's filter first, and status warns of a filter put before it since (an operator's
// `tc filter add ... pref N` with N below QJump's; on 6.18, one added without a pref gets 49152,
// after QJump's). A TCX egress runs its programs in their list's order, and one that returns
// TCX_PASS or TCX_REDIRECT ends the run: up attaches QJump's at the head (attachTCX), and status
// warns of a program attached before it since (another tool's, at link.Head() too).

// ErrFilterFirst means a filter on the device's egress is at pref 1, before which QJump's cannot go.
var ErrFilterFirst = errors.New("no pref is left before the first egress filter")

// EgressFilter is a filter on a device's clsact egress that is not QJump's.
type EgressFilter struct {
	Pref uint16 // tc's pref (netlink's priority): lower runs first
	Kind string // tc's name of its classifier: u32, bpf, flower, matchall, ...
}

func (f EgressFilter) String() string { return fmt.Sprintf("a %s filter at pref %d", f.Kind, f.Pref) }

// isQJumpFilter says whether f is QJump's cls_bpf filter, at whatever pref: the handle is
// QJump's own (0x514a), and no other classifier would answer to it as a bpf filter.
func isQJumpFilter(f netlink.Filter) bool {
	return f.Attrs().Handle == filterHandle && f.Type() == "bpf"
}

// otherFilters lists the filters on the egress of ifindex other than QJump's, in the order the
// kernel runs them, one per pref (a u32 filter is dumped as its hash table and each key). Chain 0
// only: a filter in another chain runs when one in chain 0 sends a packet there (goto chain),
// which is after QJump's. None on a device without a clsact qdisc.
func otherFilters(ifindex int) ([]EgressFilter, error) {
	if !hasClsact(ifindex) {
		return nil, nil
	}
	l := &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Index: ifindex}}
	fs, err := netlink.FilterList(l, netlink.HANDLE_MIN_EGRESS)
	if err != nil {
		return nil, fmt.Errorf("list egress filters: %w", err)
	}
	var out []EgressFilter
	for _, f := range fs {
		a := f.Attrs()
		if isQJumpFilter(f) || (a.Chain != nil && *a.Chain != 0) {
			continue
		}
		out = append(out, EgressFilter{Pref: a.Priority, Kind: f.Type()})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pref < out[j].Pref })
	var once []EgressFilter
	for _, f := range out {
		if n := len(once); n == 0 || once[n-1].Pref != f.Pref {
			once = append(once, f)
		}
	}
	return once, nil
}

// filterPref chooses the pref of QJump's filter on the egress of ifindex, to run before every
// other filter there: the default where none is at or before it, else one less than the first.
// Refused when the first is at pref 1: nothing can go before it (pref 0 asks the kernel to choose).
func filterPref(ifindex int, device string) (uint16, error) {
	others, err := otherFilters(ifindex)
	if err != nil {
		return 0, err
	}
	if len(others) == 0 || others[0].Pref > defaultFilterPriority {
		return defaultFilterPriority, nil
	}
	if first := others[0]; first.Pref == 1 {
		return 0, fmt.Errorf("%w: %s on %s's egress runs first, and QJump's filter must run before every "+
			"filter there (one that matches a packet takes it past QJump, uncounted and unlimited): add that "+
			"filter again at a higher pref (tc filter del, then add with pref 2 or more), or use --attach tcx",
			ErrFilterFirst, first, device)
	}
	return others[0].Pref - 1, nil
}

// filtersBefore lists the filters that run before QJump's on the egress of a device attached
// through clsact, added since up; none when QJump's is first, and for a TCX link.
func filtersBefore(rec record) []EgressFilter {
	if rec.Attach != AttachClsact {
		return nil
	}
	others, err := otherFilters(rec.Ifindex)
	if err != nil {
		return nil // status reads what it can; the hook check says if the device is gone
	}
	var out []EgressFilter
	for _, f := range others {
		if f.Pref < rec.filterPriority() {
			out = append(out, f)
		}
	}
	return out
}

// EgressProgram is a program on a device's TCX egress that is not QJump's.
type EgressProgram struct {
	ID   ebpf.ProgramID
	Name string // the kernel's name for it (at most 15 characters), "" if it has none
}

func (p EgressProgram) String() string {
	if p.Name == "" {
		return fmt.Sprintf("a TCX program (id %d)", p.ID)
	}
	return fmt.Sprintf("the TCX program %s (id %d)", p.Name, p.ID)
}

// programsBefore lists the programs that run before QJump's on the TCX egress of a device
// attached through TCX, attached since up; none when QJump's is first, for a clsact filter, and
// when QJump's link is not on the device (the hook check says so).
func programsBefore(p paths, rec record) []EgressProgram {
	if rec.Attach != AttachTCX {
		return nil
	}
	ours, ok := tcxProgram(p)
	if !ok {
		return nil
	}
	res, err := link.QueryPrograms(link.QueryOptions{Target: rec.Ifindex, Attach: ebpf.AttachTCXEgress})
	if err != nil {
		return nil // status reads what it can
	}
	var out []EgressProgram
	for _, ap := range res.Programs {
		if ap.ID == ours {
			return out
		}
		out = append(out, EgressProgram{ID: ap.ID, Name: programName(ap.ID)})
	}
	return nil
}

// tcxProgram is the id of the program on QJump's pinned TCX link.
func tcxProgram(p paths) (ebpf.ProgramID, bool) {
	l, err := link.LoadPinnedLink(p.pin(pinLink), nil)
	if err != nil {
		return 0, false
	}
	defer l.Close()
	info, err := l.Info()
	if err != nil {
		return 0, false
	}
	return info.Program, true
}

// programName is the kernel's name of program id, "" when it cannot be read (gone since).
func programName(id ebpf.ProgramID) string {
	prog, err := ebpf.NewProgramFromID(id)
	if err != nil {
		return ""
	}
	defer prog.Close()
	info, err := prog.Info()
	if err != nil {
		return ""
	}
	return info.Name
}
