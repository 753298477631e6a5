package testbed

import (
	"context"
	"strconv"

	"github.com/qjump-net/qjump/internal/hostnic"
)

// HostNIC says how a host's interface behaves (docs/testbed.md, "The host NIC").
type HostNIC string

const (
	// HostNICRealistic is a server's NIC: several TX queues, TSO/GSO/GRO on, and an egress that
	// drains at R under the kernel's default qdisc policy (pfifo_fast per queue), package hostnic.
	HostNICRealistic HostNIC = "realistic"
	// HostNICSimple is one queue, offloads off, one FIFO of HostQueue packets drained at R.
	HostNICSimple HostNIC = "simple"
)

// hostVethArgs are the `ip link add` arguments of a host's end of its veth: the NIC's queues,
// and its txqueuelen, which the default qdisc of each queue takes as its limit.
func hostVethArgs(c Config) []string {
	if c.HostNIC != HostNICRealistic {
		return nil
	}
	q := strconv.Itoa(hostnic.Queues)
	return []string{"numtxqueues", q, "numrxqueues", q, "txqueuelen", strconv.Itoa(c.HostQueue)}
}

// hostOffloads sets the host interface's segmentation offloads: on for a realistic NIC, off for a
// simple one, where queues hold and count frames.
func hostOffloads(ns, dev string, c Config) []string {
	if c.HostNIC == HostNICRealistic {
		return hostnic.Offloads(ns, dev)
	}
	return InNS(ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off")
}

// shapeHostEgress gives the host's interface its egress without QJump.
func shapeHostEgress(ctx context.Context, ns, dev string, c Config) error {
	if c.HostNIC == HostNICRealistic {
		return runAll(ctx, hostnic.Egress(ns, dev, c.Rate, hostnic.Queues))
	}
	return shapeHost(ctx, ns, dev, c)
}
