package tctree

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// Attribute numbers inside TCA_OPTIONS that matter here (linux/pkt_sched.h, linux/pkt_cls.h).
const (
	tcaHTBInit        = 2 // struct tc_htb_glob: version, rate2quantum, defcls, debug, direct_pkts
	htbGlobDirectPkts = 16

	tcaU32Divisor = 4 // a hash table's number of buckets
	tcaU32PCnt    = 9 // struct tc_u32_pcnt: hit counters
	tcaU32Flags   = 11

	tcaBPFFlagsGen = 9

	// Filter flags the kernel reports (in or not in hardware) but refuses on creation: only
	// skip_hw and skip_sw are requests.
	clsFlagsRequest = 0x3

	tcaBPFOps = 5 // classic BPF instructions: re-creatable
	tcaBPFAct = 1 // actions
	tcaU32Act = 7
)

// ErrNotRestorable means the device's tree holds something that cannot be put back from a dump, so
// taking the device over would lose it.
var ErrNotRestorable = errors.New("egress configuration cannot be restored")

// Restorable checks that Restore can re-create every object of t. It refuses what a dump does not
// describe completely: an eBPF classifier (the dump names a program by id, which dies with its
// last reference) and filters with actions (their dumps carry run-time state).
func (t Tree) Restorable() error {
	if t.Default() {
		return nil
	}
	for _, o := range t.Objects {
		if o.Kind != Filter {
			continue
		}
		attrs, err := nested(o.Options)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrNotRestorable, o, err)
		}
		switch {
		case o.Type == "bpf" && attrs[tcaBPFOps] == nil:
			return fmt.Errorf("%w: %s is an eBPF classifier", ErrNotRestorable, o)
		case isU32Table(o) && len(attrs[tcaU32Divisor]) == 4 && binary.NativeEndian.Uint32(attrs[tcaU32Divisor]) > 1:
			return fmt.Errorf("%w: %s is a u32 hash table of its own", ErrNotRestorable, o)
		case o.Type == "bpf" && attrs[tcaBPFAct] != nil, o.Type == "u32" && attrs[tcaU32Act] != nil:
			return fmt.Errorf("%w: %s has actions", ErrNotRestorable, o)
		case o.Type != "bpf" && o.Type != "u32":
			return fmt.Errorf("%w: %s: only u32 and classic-BPF classifiers are restored", ErrNotRestorable, o)
		}
	}
	return nil
}

// stableOptions is o's options without the counters some kinds keep inside them: HTB's count of
// packets sent directly, u32's hit counts. What is left is configuration.
func stableOptions(o Object) []byte {
	switch {
	case o.Kind == Qdisc && o.Type == "htb":
		return rewriteNested(o.Options, func(typ uint16, v []byte) []byte {
			if typ == tcaHTBInit && len(v) >= htbGlobDirectPkts+4 {
				v = append([]byte(nil), v...)
				binary.NativeEndian.PutUint32(v[htbGlobDirectPkts:], 0)
			}
			return v
		})
	case o.Kind == Filter && o.Type == "u32":
		return replayOptions(o)
	}
	return o.Options
}

// replayOptions is what Restore sends back: the dump, in the form the kernel takes on creation,
// minus read-only counters it would reject.
func replayOptions(o Object) []byte {
	if o.Kind == Qdisc && o.Type == "htb" {
		// HTB dumps its full version (3.17) and takes only the major one (3) when created.
		return rewriteNested(o.Options, func(typ uint16, v []byte) []byte {
			if typ == tcaHTBInit && len(v) >= 4 {
				v = append([]byte(nil), v...)
				binary.NativeEndian.PutUint32(v, binary.NativeEndian.Uint32(v)>>16)
			}
			return v
		})
	}
	if o.Kind == Filter {
		flags := map[string]uint16{"u32": tcaU32Flags, "bpf": tcaBPFFlagsGen}[o.Type]
		return rewriteNested(o.Options, func(typ uint16, v []byte) []byte {
			switch {
			case o.Type == "u32" && typ == tcaU32PCnt:
				return nil
			case typ == flags && len(v) == 4:
				return binary.NativeEndian.AppendUint32(nil, binary.NativeEndian.Uint32(v)&clsFlagsRequest)
			}
			return v
		})
	}
	return o.Options
}

// nested parses a TCA_OPTIONS payload into its attributes by type.
func nested(b []byte) (map[uint16][]byte, error) {
	attrs, err := nl.ParseRouteAttr(b)
	if err != nil {
		return nil, err
	}
	out := make(map[uint16][]byte, len(attrs))
	for _, a := range attrs {
		out[a.Attr.Type&^unix.NLA_F_NESTED] = a.Value
	}
	return out, nil
}

// rewriteNested re-encodes b's attributes through f; f returning nil drops the attribute. A
// payload that is not a list of attributes (some kinds put a bare struct there) comes back as is.
func rewriteNested(b []byte, f func(typ uint16, v []byte) []byte) []byte {
	attrs, err := nl.ParseRouteAttr(b)
	if err != nil {
		return b
	}
	var out []byte
	for _, a := range attrs {
		v := f(a.Attr.Type&^unix.NLA_F_NESTED, a.Value)
		if v == nil {
			continue
		}
		out = append(out, nl.NewRtAttr(int(a.Attr.Type), v).Serialize()...)
	}
	return out
}
