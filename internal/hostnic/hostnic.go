// Package hostnic makes a veth behave like a server's NIC under the kernel's default qdisc: several
// TX queues, segmentation offloads on, and an egress that drains at the line rate R, so that the
// backlog builds in the host, in the default qdisc, served by that qdisc's own policy. The testbed's
// realistic hosts and the dataplane's host-priority tests run on it (docs/testbed.md, "The host
// NIC").
//
// The egress is a tree that tctree can save and put back, as `qjump up` and `down` do:
//
//	1: htb, root class 1:1 at R (wire bytes: overhead 24, mpu 84)
//	├─ 1:10 TX queue 0: prio 0, rate 8 kbit, ceil R, quantum one frame ─ 20: tbf ─ 30: pfifo_fast
//	├─ 1:11 TX queue 1 ...                                              ─ 21: tbf ─ 31: pfifo_fast
//	└─ ...
//	filter: classic BPF, class 1:10 + the packet's TX queue
//
// One class per TX queue at equal prio is the NIC's round robin over its rings; each ring is the
// kernel's default qdisc for a NIC queue, pfifo_fast with its priomap. The TBF (10 Gb/s, a bucket
// of one frame) only cuts GSO packets into frames before they are queued, as TSO hands the wire
// frames: the switch receives frames, and a ring's backlog is counted in frames.
package hostnic

import (
	"fmt"
	"strconv"

	"github.com/qjump-net/qjump/internal/model"
)

// Queues is the number of TX (and RX) queues of a realistic host's interface.
const Queues = 4

// frame is the largest frame of a 1500-byte MTU without FCS, the unit of the rings' quantum.
const frame = 1514

// WireRate are the tc rate options that make an HTB class or TBF count what a frame occupies on
// the wire, as QJump's model does (docs/model.md): 24 bytes of FCS, preamble and inter-frame gap
// on top of each frame, and at least a minimum frame.
var WireRate = []string{"overhead", strconv.Itoa(int(model.FrameOverhead)), "mpu", strconv.Itoa(int(model.MinWireFrame))}

// queueClassifier is a classic BPF program for cls_bpf, whose return value is the class:
// A = the packet's TX queue (SKF_AD_OFF + SKF_AD_QUEUE); return 1:10 + A.
const queueClassifier = "3,32 0 0 4294963224,4 0 0 65552,22 0 0 0"

// Offloads turns TSO, GSO and GRO on for dev in namespace ns, as on a server's NIC.
func Offloads(ns, dev string) []string {
	return []string{"ip", "netns", "exec", ns, "ethtool", "-K", dev, "tso", "on", "gso", "on", "gro", "on"}
}

// Egress is the tc commands that give dev in ns the emulated NIC's egress at rate r over queues TX
// queues (dev must have been created with that many).
func Egress(ns, dev string, r model.Rate, queues int) [][]string {
	tc := func(args ...string) []string { return append([]string{"tc", "-n", ns}, args...) }
	rate := strconv.FormatInt(int64(r), 10) + "bit"
	burst := strconv.Itoa(max(2*frame, int(float64(r)*200e-6/8)))
	steps := [][]string{
		tc("qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "10"),
		append(tc("class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate,
			"burst", burst, "cburst", burst), WireRate...),
	}
	for q := range queues {
		class := fmt.Sprintf("1:%x", 0x10+q)
		tbf := fmt.Sprintf("%x:", 0x20+q)
		steps = append(steps,
			append(tc("class", "add", "dev", dev, "parent", "1:1", "classid", class, "htb", "rate", "8kbit", "ceil", rate,
				"burst", burst, "cburst", burst, "prio", "0", "quantum", strconv.Itoa(frame)), WireRate...),
			tc("qdisc", "add", "dev", dev, "parent", class, "handle", tbf, "tbf", "rate", "10gbit", "burst",
				strconv.Itoa(frame), "limit", strconv.Itoa(100*frame)),
			tc("qdisc", "add", "dev", dev, "parent", tbf+"1", "handle", fmt.Sprintf("%x:", 0x30+q), "pfifo_fast"))
	}
	return append(steps, tc("filter", "add", "dev", dev, "parent", "1:", "protocol", "all", "prio", "1",
		"bpf", "bytecode", queueClassifier))
}
