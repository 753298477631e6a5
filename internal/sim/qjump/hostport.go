package qjump

import (
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
)

// HostPort is a host's NIC under QJump: one FIFO per level, served in strict priority (the paper
// prioritises in the end host too, §4), each packet sent only when its level's budget for the
// current epoch has room. A packet that does not fit waits for the next epoch, as in the
// dataplane's shape mode (whose token bucket, though, never sends two budgets back to back as
// these epoch budgets can). Each level holds at most limit packets and drops what arrives beyond,
// as each level's leaf qdisc in the dataplane holds the device's queue length (txqueuelen
// frames): a level whose senders outrun its budget would otherwise hold without bound, and TCP,
// never losing a packet there, would grow its window without bound too.
//
// The host's clock is the simulator's plus a fixed offset: hosts' epochs are not aligned
// (mesochronous), which is what the model's m compensates for.
type HostPort struct {
	el       *sim.EventList
	pool     *sim.PacketPool
	rate     sim.Rate
	limit    int      // packets a level may hold (the one being sent excluded)
	link     sim.Time // the delay of the link behind the NIC
	limiter  *Limiter
	offsetNs int64
	level    [model.NumLevels]sim.FIFO
	waiting  int
	free     sim.Time // when the packet being sent is out
	txAt     sim.Time // the time of the pending event for when the link frees; sim.Never: none
	wakeAt   sim.Time // a wake-up for the next epoch is scheduled at this time; 0: none
	held     uint64
	stats    sim.QueueStats
}

// NewHostPort returns a NIC of rate, each level of which holds up to limit packets, whose limiter
// runs offsetNs ahead of simulated time.
func NewHostPort(el *sim.EventList, pool *sim.PacketPool, rate sim.Rate, limit int, limiter *Limiter, offsetNs int64) *HostPort {
	return &HostPort{el: el, pool: pool, rate: rate, limit: limit, limiter: limiter, offsetNs: offsetNs, txAt: sim.Never}
}

// SetLink sets the delay of the link behind the NIC.
func (h *HostPort) SetLink(delay sim.Time) { h.link = delay }

// Held counts the times a packet had to wait for a new epoch.
func (h *HostPort) Held() uint64 { return h.held }

// Stats returns what the port counted: drops at full levels, and the longest level.
func (h *HostPort) Stats() sim.QueueStats { return h.stats }

// Len is the number of packets waiting.
func (h *HostPort) Len() int { return h.waiting }

func (h *HostPort) nowNs() int64 { return int64(h.el.Now()/sim.Nanosecond) + h.offsetNs }

func (h *HostPort) idle() bool { return h.free <= h.el.Now() }

// Receive queues p at its level and sends if the link is idle. A packet's arrival at the next
// hop is scheduled when it starts, its link's delay added; the port has an event of its own only
// for when the link frees with packets waiting, and for a new epoch.
func (h *HostPort) Receive(p *sim.Packet) {
	if h.txAt == h.el.Now() {
		// The link freed at this very picosecond and its event has not run yet: departures at a
		// time come before arrivals at that time, as in sim.Queue.
		h.txAt = sim.Never
		h.startNext()
	}
	l := p.Level & (model.NumLevels - 1)
	q := &h.level[l]
	if q.Len() >= h.limit {
		h.stats.Drops++
		h.pool.DropAtHost(p, h.el.Now())
		return
	}
	q.Push(p)
	h.waiting++
	if h.idle() {
		h.startNext()
	} else {
		h.wakeWhenFree()
	}
	h.stats.MaxLen = max(h.stats.MaxLen, q.Len()) // what waits, once the link took what it could
}

func (h *HostPort) wakeWhenFree() {
	if h.txAt != h.free {
		h.txAt = h.free
		h.el.Schedule(h.free, h)
	}
}

// startNext sends the head of the highest level whose budget admits it, or sleeps until the
// next epoch if no waiting level has budget left.
func (h *HostPort) startNext() {
	if h.waiting == 0 {
		return
	}
	now := h.nowNs()
	for l := model.NumLevels - 1; l >= 0; l-- {
		q := &h.level[l]
		if q.Len() == 0 || !h.limiter.Charge(h.limiter.Carrier(l), int64(q.Peek().Size), now) {
			continue
		}
		p := q.Pop()
		h.waiting--
		h.free = h.el.Now() + h.rate.Serialization(int(p.Size))
		h.el.Hops++
		if p.Origin != nil {
			p.Origin.LeftHost(p, h.free)
		}
		if at := h.free + h.link; !h.el.SchedulePacketNear(at, p) {
			h.el.SchedulePacket(at, p)
		}
		if h.waiting > 0 {
			h.wakeWhenFree()
		}
		return
	}
	h.held++
	wake := sim.Time(h.limiter.NextEpochNs(now)-h.offsetNs) * sim.Nanosecond
	if h.wakeAt != wake {
		h.wakeAt = wake
		h.el.Schedule(wake, (*epochWake)(h))
	}
}

// epochWake is the host port's second event: a new epoch may have budget for a held packet.
type epochWake HostPort

func (w *epochWake) DoNextEvent() {
	h := (*HostPort)(w)
	if h.el.Now() != h.wakeAt {
		return // superseded by a later wake-up
	}
	h.wakeAt = 0
	if h.idle() {
		h.startNext()
	}
}

// DoNextEvent: the link is free; start the next packet.
func (h *HostPort) DoNextEvent() {
	if h.el.Now() != h.txAt {
		return // made stale by an arrival at the same picosecond
	}
	h.txAt = sim.Never
	h.startNext()
}
