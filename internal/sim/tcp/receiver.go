package tcp

import "github.com/qjump-net/qjump/internal/sim"

// Receiver is a flow's receiving end: it keeps packets that arrive out of order, acknowledges
// every packet (ns-2's ackRatio 1, as the pFabric simulations) with the cumulative next expected
// packet, echoes CE as ECE (DCTCP's one-ACK-per-packet echo) and stamps ACKs with the highest
// priority for pFabric.
type Receiver struct {
	el     *sim.EventList
	pool   *sim.PacketPool
	flow   *Flow
	route  sim.Route
	expect int32
	// ackLevel is the QJump level of the ACKs, or -1: the level of the packet each answers.
	ackLevel int16
	got      seqSet // packets received beyond expect; nil until one arrives out of order
	done     func(*Flow)
}

// NewReceiver prepares the receiving end of flow; ACKs go over route (which ends at the sender)
// and done is called once, when every byte has arrived.
func NewReceiver(el *sim.EventList, pool *sim.PacketPool, flow *Flow, route sim.Route, done func(*Flow)) *Receiver {
	return &Receiver{el: el, pool: pool, flow: flow, route: route, done: done, ackLevel: -1}
}

// SetAckLevel sends every ACK at level instead of its data packet's level.
func (r *Receiver) SetAckLevel(level uint8) { r.ackLevel = int16(level) }

// Receive takes a data packet and answers with an ACK.
func (r *Receiver) Receive(p *sim.Packet) {
	seq := p.Seq
	if seq == r.expect {
		r.expect++
		for r.expect < r.flow.Packets && r.got.has(r.expect) {
			r.expect++
		}
	} else if seq > r.expect {
		r.mark(seq)
	}
	a := r.pool.Get()
	a.IsAck, a.Flow, a.Seq, a.AckNo, a.Size = true, p.Flow, seq, r.expect, AckSize
	a.ECE, a.Level = p.CE, p.Level
	if r.ackLevel >= 0 {
		a.Level = uint8(r.ackLevel)
	}
	r.pool.Put(p)
	a.SetRoute(r.route)
	if r.expect == r.flow.Packets && !r.flow.Done() {
		r.flow.Finish = r.el.Now()
		r.got = nil
		r.done(r.flow)
	}
	a.SendOn()
}

// mark notes packet seq, received out of order.
func (r *Receiver) mark(seq int32) {
	if r.got == nil {
		r.got = newSeqSet(r.flow.Packets)
	}
	r.got.add(seq)
}

// SetRoute sets the route of the ACKs (for a receiver made before its sender).
func (r *Receiver) SetRoute(route sim.Route) { r.route = route }
