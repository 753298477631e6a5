package testbed

import (
	"context"
	"fmt"
	"strconv"

	"github.com/qjump-net/qjump/internal/hostnic"
	"github.com/qjump-net/qjump/internal/model"
)

// MaxFrame is the largest Ethernet frame on the wire without FCS (1500 bytes of MTU and a 14-byte
// header): the unit of HTB's burst, and the P the experiments give the model.
const MaxFrame = 1514

// burstBytes is how far HTB may run ahead of R: two frames, or 200µs of traffic at high rates so
// that a timer firing late (HZ=250, two busy cores) does not leave the link under-used.
func burstBytes(r model.Rate) int {
	b := int(float64(r) * 200e-6 / 8)
	return max(b, 2*MaxFrame)
}

func rateArg(r model.Rate) string { return strconv.FormatInt(int64(r), 10) + "bit" }

// levelClass is the HTB class minor of level l's queue on a switch port (hex in tc syntax).
func levelClass(l int) string { return fmt.Sprintf("1:%x", 0x10+l) }

// rootAtR is an HTB root qdisc with one root class 1:1 at R, under which the egress's queues
// hang; unclassified traffic goes to defaultClass. Every class counts wire bytes (hostnic.WireRate),
// so that a link carries R of the wire, as QJump's epoch assumes, on the host and the switch alike.
func rootAtR(ns, dev string, r model.Rate, defaultClass string) [][]string {
	burst := strconv.Itoa(burstBytes(r))
	return [][]string{
		{"tc", "-n", ns, "qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", defaultClass},
		append([]string{"tc", "-n", ns, "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb",
			"rate", rateArg(r), "ceil", rateArg(r), "burst", burst, "cburst", burst}, hostnic.WireRate...),
	}
}

// shapeHost gives host egress one FIFO of HostQueue packets drained at R: a NIC without QJump.
func shapeHost(ctx context.Context, ns, dev string, c Config) error {
	steps := append(rootAtR(ns, dev, c.Rate, "1"),
		[]string{"tc", "-n", ns, "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "2:", "pfifo",
			"limit", strconv.Itoa(c.HostQueue)})
	return runAll(ctx, steps)
}

// shapeSwitchPort makes port's egress a switch output queue: a root class at R and eight leaf
// classes served in strict priority, level 7 first. HTB serves classes that are within their own
// rate before any that borrow, so each leaf's own rate is the minimum HTB allows and everything
// else is borrowed from the root in prio order: strict priority with a negligible (8 kbit/s)
// guaranteed trickle per level. Each leaf holds at most Buffer packets, then drops at the tail.
func shapeSwitchPort(ctx context.Context, ns, dev string, c Config) error {
	burst := strconv.Itoa(burstBytes(c.Rate))
	steps := rootAtR(ns, dev, c.Rate, "10")
	for l := 0; l < model.NumLevels; l++ {
		handle := fmt.Sprintf("%x:", 0x10+l)
		steps = append(steps,
			append([]string{"tc", "-n", ns, "class", "add", "dev", dev, "parent", "1:1", "classid", levelClass(l),
				"htb", "rate", "8kbit", "ceil", rateArg(c.Rate), "burst", burst, "cburst", burst,
				"prio", strconv.Itoa(int(model.TopLevel) - l), "quantum", strconv.Itoa(MaxFrame)}, hostnic.WireRate...),
			[]string{"tc", "-n", ns, "qdisc", "add", "dev", dev, "parent", levelClass(l), "handle", handle,
				"pfifo", "limit", strconv.Itoa(c.Buffer)})
	}
	steps = append(steps, classifyFilters(ns, dev, c.Classify)...)
	return runAll(ctx, steps)
}

// classifyFilters map a packet's level to its queue. DSCP: the class selector (the top three bits
// of the TOS byte) is the level, so CS0..CS7 and the AF classes inside them land in order. PCP: the
// dataplane pushes the tag from eBPF, so it travels as skb metadata (veth and the bridge keep it
// there) where u32 cannot see it; a classic BPF classifier reads it instead (pcpClassifier).
func classifyFilters(ns, dev string, cls Classify) [][]string {
	if cls == ClassifyPCP {
		return [][]string{{"tc", "-n", ns, "filter", "add", "dev", dev, "parent", "1:", "protocol", "all",
			"prio", "1", "bpf", "bytecode", pcpClassifier}}
	}
	var steps [][]string
	for l := 0; l < model.NumLevels; l++ {
		steps = append(steps, []string{"tc", "-n", ns, "filter", "add", "dev", dev, "parent", "1:",
			"protocol", "ip", "prio", "1", "u32", "match", "ip", "tos", fmt.Sprintf("0x%02x", l<<5), "0xe0",
			"flowid", levelClass(l)})
	}
	return steps
}

// pcpClassifier is a classic BPF program for cls_bpf, whose return value is the class id:
//
//	A = vlan_tag_present; if A == 0 return 1:10 (level 0)
//	A = vlan_tci; A = (A >> 13) & 7; return 1:10 + A
//
// Loads at SKF_AD_OFF (-4096) + 48 and + 44 are the kernel's VLAN_TAG_PRESENT and VLAN_TAG
// ancillary fields.
const pcpClassifier = "8,32 0 0 4294963248,21 5 0 0,32 0 0 4294963244,116 0 0 13,84 0 0 7," +
	"4 0 0 65552,22 0 0 0,6 0 0 65552"

func runAll(ctx context.Context, steps [][]string) error {
	for _, s := range steps {
		if err := run(ctx, s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
}
