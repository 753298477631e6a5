// Package tctree saves the egress queueing configuration of a network device (its root qdisc, the
// classes and qdiscs below it, and their filters) and puts it back. QJump owns a device's egress
// scheduling while it is up, whatever was there before; `qjump down` must leave the device exactly
// as `up` found it.
//
// Most servers run the kernel's own default (noqueue on virtual devices, pfifo_fast or mq with one
// default child per TX queue on NICs): its qdiscs have handle 0, and deleting QJump's root makes
// the kernel attach the same default again. Anything an operator configured (fq for pacing, an HTB
// tree, a shaper) is re-created from the kernel's own dump: each object's kind and options are
// sent back exactly as the kernel reported them, parents first.
package tctree

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/vishvananda/netlink"
)

// Kind is what an Object is to the traffic-control subsystem.
type Kind string

const (
	Qdisc  Kind = "qdisc"
	Class  Kind = "class"
	Filter Kind = "filter"
)

// Object is one qdisc, class or filter as the kernel dumps it, reduced to what re-creates it.
type Object struct {
	Kind    Kind    `json:"kind"`
	Handle  uint32  `json:"handle"`
	Parent  uint32  `json:"parent"`
	Info    uint32  `json:"info,omitempty"`  // filters: priority << 16 | protocol (network order)
	Type    string  `json:"type"`            // TCA_KIND: htb, pfifo_fast, bpf, ...
	Options []byte  `json:"options"`         // TCA_OPTIONS as dumped
	Chain   *uint32 `json:"chain,omitempty"` // filters: TCA_CHAIN
}

// Tree is a device's egress configuration: every object below the root, parents before children.
// The ingress side (ingress or clsact qdisc) is not part of it.
type Tree struct {
	Objects []Object `json:"objects"`
}

// Root is the root qdisc, or false when the dump held none.
func (t Tree) Root() (Object, bool) {
	for _, o := range t.Objects {
		if o.Kind == Qdisc && o.Parent == netlink.HANDLE_ROOT {
			return o, true
		}
	}
	return Object{}, false
}

// Default reports whether the tree is the kernel's own: every qdisc has handle 0 (noqueue,
// pfifo_fast, or mq with one default child per TX queue) and nothing is classified. Deleting any
// root put over it brings the same default back by itself. An mq or pfifo_fast added by hand has a
// handle of its own, and deleting the root would not bring it back.
func (t Tree) Default() bool {
	for _, o := range t.Objects {
		if o.Handle != 0 || o.Kind == Filter {
			return false
		}
	}
	return true
}

// String names the root and counts what hangs below it, for messages: "htb 1: (5 classes, 4
// qdiscs, 1 filter)".
func (t Tree) String() string {
	root, ok := t.Root()
	if !ok {
		return "no root qdisc"
	}
	counts := map[Kind]int{}
	for _, o := range t.Objects {
		if !implicit(t, o) || o.Kind == Qdisc {
			counts[o.Kind]++
		}
	}
	counts[Qdisc]-- // the root itself
	var parts []string
	for _, k := range []Kind{Class, Qdisc, Filter} {
		if n := counts[k]; n > 0 {
			parts = append(parts, plural(n, string(k)))
		}
	}
	s := root.Type + " " + qdiscHandle(root.Handle)
	if t.Default() {
		s += " (the kernel's default)"
	} else if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// qdiscHandle writes a qdisc's handle as tc does: its major number and a colon.
func qdiscHandle(h uint32) string { return fmt.Sprintf("%x:", h>>16) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "s") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Equal reports whether two trees configure the same thing: the same objects with the same options,
// in any order. Counters that some kinds report inside their options are not configuration and are
// ignored (see stableOptions).
func Equal(a, b Tree) bool {
	return slices.EqualFunc(sorted(a), sorted(b), func(x, y Object) bool {
		return x.Kind == y.Kind && x.Handle == y.Handle && x.Parent == y.Parent && x.Info == y.Info &&
			x.Type == y.Type && equalChain(x.Chain, y.Chain) &&
			bytes.Equal(stableOptions(x), stableOptions(y))
	})
}

// Diff lists, one per line, the objects of want that got has not, configured the same.
func Diff(want, got Tree) string {
	var missing []string
	for _, w := range want.Objects {
		found := slices.ContainsFunc(got.Objects, func(g Object) bool {
			return Equal(Tree{Objects: []Object{w}}, Tree{Objects: []Object{g}})
		})
		if !found {
			missing = append(missing, w.String())
		}
	}
	return strings.Join(missing, "\n")
}

func (o Object) String() string {
	s := fmt.Sprintf("%s %s %s parent %s", o.Kind, o.Type, netlink.HandleStr(o.Handle), netlink.HandleStr(o.Parent))
	if o.Kind == Filter {
		s += fmt.Sprintf(" prio %d", o.Info>>16)
	}
	return s
}

func sorted(t Tree) []Object {
	out := slices.Clone(t.Objects)
	slices.SortFunc(out, func(x, y Object) int {
		return strings.Compare(x.String(), y.String())
	})
	return out
}

func equalChain(a, b *uint32) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
