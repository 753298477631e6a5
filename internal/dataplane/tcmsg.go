package dataplane

import (
	"encoding/binary"
	"math"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
)

// The netlink messages that build QJump's egress tree. vishvananda/netlink cannot say that a rate
// counts wire bytes (its HTB class and TBF leave the rate spec's overhead and mpu at zero), so the
// tree is built from the kernel's own structures, as tctree re-creates a saved one.

// tcObject is one qdisc, class or filter to create or change.
type tcObject struct {
	cmd     int    // unix.RTM_NEWQDISC, RTM_NEWTCLASS, RTM_NEWTFILTER
	handle  uint32 // filters: the filter's handle
	parent  uint32
	info    uint32 // filters: priority << 16 | protocol (network order)
	kind    string // TCA_KIND; "" for none (a delete that takes whatever kind is there)
	options []byte // TCA_OPTIONS; nil for none
}

// send asks the kernel for o on ifindex with the given NLM_F_ flags (CREATE, EXCL, REPLACE).
func (o tcObject) send(ifindex int, flags int) error {
	req := nl.NewNetlinkRequest(o.cmd, flags|unix.NLM_F_ACK)
	req.AddData(&nl.TcMsg{Family: nl.FAMILY_ALL, Ifindex: int32(ifindex), Handle: o.handle, Parent: o.parent, Info: o.info})
	if o.kind != "" {
		req.AddData(nl.NewRtAttr(nl.TCA_KIND, nl.ZeroTerminated(o.kind)))
	}
	if o.options != nil {
		req.AddData(nl.NewRtAttr(nl.TCA_OPTIONS, o.options))
	}
	_, err := req.Execute(unix.NETLINK_ROUTE, 0)
	return err
}

// wireRate is a rate spec in wire bytes (model.WireBytes): every packet is charged its length
// plus the 24 bytes of FCS, preamble and gap, and at least a minimum frame's 84. rate is in
// bytes/s; above 32 bits the spec holds ~0 and the 64-bit attribute the rate.
func wireRate(rate uint64) nl.TcRateSpec {
	return nl.TcRateSpec{Linklayer: nl.LINKLAYER_ETHERNET, Overhead: uint16(model.FrameOverhead),
		Mpu: uint16(model.MinWireFrame), Rate: uint32(min(rate, math.MaxUint32))}
}

// ticks is the time to send bytes at rate bytes/s in the kernel's scheduler ticks (64 ns), as
// HTB's buffer and TBF's bucket take it.
func ticks(bytes uint64, rate uint64) uint32 {
	ns := float64(bytes) * 1e9 / float64(max(rate, 1))
	return uint32(min(ns/64, math.MaxUint32))
}

func htbQdisc(ifindex int, defcls uint32) tcObject {
	glob := nl.TcHtbGlob{Version: 3, Rate2Quantum: 10, Defcls: defcls}
	opts := nl.NewRtAttr(nl.TCA_OPTIONS, nil)
	opts.AddRtAttr(nl.TCA_HTB_INIT, glob.Serialize())
	return tcObject{cmd: unix.RTM_NEWQDISC, handle: htbMajor << 16, parent: netlink.HANDLE_ROOT, kind: "htb",
		options: children(opts)}
}

// htbClass is an HTB class at rate, borrowing up to ceil (bytes/s), with bursts of burst bytes at
// its rate and cburst bytes at its ceiling.
func htbClass(handle, parent uint32, rate, ceil uint64, burst, cburst uint64, quantum, prio uint32) tcObject {
	copt := nl.TcHtbCopt{Rate: wireRate(rate), Ceil: wireRate(ceil), Buffer: ticks(burst, rate),
		Cbuffer: ticks(cburst, ceil), Quantum: quantum, Prio: prio}
	opts := nl.NewRtAttr(nl.TCA_OPTIONS, nil)
	opts.AddRtAttr(nl.TCA_HTB_PARMS, copt.Serialize())
	if rate > math.MaxUint32 {
		opts.AddRtAttr(nl.TCA_HTB_RATE64, nl.Uint64Attr(rate))
	}
	if ceil > math.MaxUint32 {
		opts.AddRtAttr(nl.TCA_HTB_CEIL64, nl.Uint64Attr(ceil))
	}
	return tcObject{cmd: unix.RTM_NEWTCLASS, handle: handle, parent: parent, kind: "htb", options: children(opts)}
}

// tbf is a token bucket filter at rate (bytes/s) whose bucket holds maxSize bytes of packet (skb
// length: the wire overhead comes on top, through the rate spec), queueing up to limit bytes. A
// peak rate above rate with a bucket of pburst bytes makes the largest packet it sends pburst:
// the TBF cuts any GSO packet larger than that into its segments when it is queued (tbf_segment).
func tbf(handle, parent uint32, rate uint64, maxSize uint32, peak uint64, pburst, limit uint32) tcObject {
	q := nl.TcTbfQopt{Rate: wireRate(rate), Limit: limit, Buffer: ticks(uint64(maxSize)+uint64(model.FrameOverhead), rate)}
	opts := nl.NewRtAttr(nl.TCA_OPTIONS, nil)
	if peak > 0 {
		q.Peakrate = wireRate(peak)
		q.Mtu = ticks(uint64(pburst)+uint64(model.FrameOverhead), peak)
	}
	opts.AddRtAttr(nl.TCA_TBF_PARMS, q.Serialize())
	if rate > math.MaxUint32 {
		opts.AddRtAttr(nl.TCA_TBF_RATE64, nl.Uint64Attr(rate))
	}
	opts.AddRtAttr(nl.TCA_TBF_BURST, nl.Uint32Attr(maxSize))
	if peak > 0 {
		if peak > math.MaxUint32 {
			opts.AddRtAttr(nl.TCA_TBF_PRATE64, nl.Uint64Attr(peak))
		}
		opts.AddRtAttr(nl.TCA_TBF_PBURST, nl.Uint32Attr(pburst))
	}
	return tcObject{cmd: unix.RTM_NEWQDISC, handle: handle, parent: parent, kind: "tbf", options: children(opts)}
}

// pfifo is a FIFO of limit packets (its options are a bare struct tc_fifo_qopt, not attributes).
func pfifo(handle, parent uint32, limit uint32) tcObject {
	return tcObject{cmd: unix.RTM_NEWQDISC, handle: handle, parent: parent, kind: "pfifo",
		options: binary.NativeEndian.AppendUint32(nil, limit)}
}

// classifyAll is a classic-BPF cls_bpf filter on parent that puts every packet it sees in classid
// (a cls_bpf program's return value is the class): one instruction, "ret #classid".
func classifyAll(parent, classid uint32) tcObject {
	const bpfRetK = 0x06 // BPF_RET | BPF_K
	insn := binary.NativeEndian.AppendUint16(nil, bpfRetK)
	insn = append(insn, 0, 0) // jt, jf
	insn = binary.NativeEndian.AppendUint32(insn, classid)
	opts := nl.NewRtAttr(nl.TCA_OPTIONS, nil)
	opts.AddRtAttr(nl.TCA_BPF_OPS_LEN, nl.Uint16Attr(1))
	opts.AddRtAttr(nl.TCA_BPF_OPS, insn)
	return tcObject{cmd: unix.RTM_NEWTFILTER, handle: 1, parent: parent,
		info: 1<<16 | uint32(netOrder16(unix.ETH_P_ALL)), kind: "bpf", options: children(opts)}
}

// children is the payload of a nested attribute: its sub-attributes, without its own header.
func children(a *nl.RtAttr) []byte { return a.Serialize()[unix.SizeofRtAttr:] }

func netOrder16(v uint16) uint16 { return v<<8 | v>>8 }
