package qjump

import "github.com/qjump-net/qjump/internal/sim"

// FlowPolicer is the QJump limiter of the paper's own simulation, for comparison with ours: the
// authors' ns-2 patch (github.com/camsas/qjump-ns2, ns-allinone-2.34.qjump.patch, adc/qjump.cc,
// QJUMP::recv and QJUMP_Value::timeout) gives every flow a limiter of its own, attached to its
// TCP sender (tcp-common-opt.tcl, TCP_pair setup and start). A flow may send a budget of bits per
// interval, counted from the flow's start; the budget is refilled whole at each interval's end,
// and a packet that does not fit is dropped (police), not held. ACKs, which the receiver sends,
// do not pass it. Ours (HostPort, Limiter) is the paper's §3 and the dataplane's: one budget per
// level per host, shared by all the host's flows and ACKs at that level, on a fixed epoch grid,
// holding what does not fit.
//
// A FlowPolicer is the first sink of its flow's data route: it passes a packet on to the host's
// NIC at once, or drops it and tells the sender that it left the host.
type FlowPolicer struct {
	el       *sim.EventList
	pool     *sim.PacketPool
	budget   int64    // bits per interval
	interval sim.Time // ns-2's time_interval_ (1.05 ms in the authors' scripts)
	start    sim.Time // the flow's start: its intervals are counted from it
	epoch    int64    // the interval tokens belongs to
	tokens   int64    // bits left in it
	dropped  uint64
}

// NewFlowPolicer returns the limiter of a flow starting now that may send budgetBits per
// interval.
func NewFlowPolicer(el *sim.EventList, pool *sim.PacketPool, budgetBits int64, interval sim.Time) *FlowPolicer {
	return &FlowPolicer{el: el, pool: pool, budget: budgetBits, interval: interval, start: el.Now(), tokens: budgetBits}
}

// Dropped is the number of packets the policer dropped.
func (f *FlowPolicer) Dropped() uint64 { return f.dropped }

// Receive passes p on if the flow's interval has its bits left (ns-2 compares tokens ≥ size in
// bits), and drops it otherwise.
func (f *FlowPolicer) Receive(p *sim.Packet) {
	if e := int64((f.el.Now() - f.start) / f.interval); e != f.epoch {
		f.epoch, f.tokens = e, f.budget
	}
	bits := int64(p.Size) * 8
	if f.tokens >= bits {
		f.tokens -= bits
		p.SendOn()
		return
	}
	f.dropped++
	f.pool.DropAtHost(p, f.el.Now())
}
