package sim

// QueueStats are what a queue counts.
type QueueStats struct {
	Drops  uint64 // packets dropped on arrival or pushed out
	Marks  uint64 // packets marked CE
	MaxLen int    // most packets waiting at once
}

// port is the transmitter the scheduling queue disciplines (strict priority, pFabric) share: it
// serializes one packet at a time at the link rate (store and forward). When a packet starts, its
// arrival at the next hop is known and scheduled at once, its link's delay added; the port
// itself needs an event only to choose the next packet when the link frees with packets waiting,
// which it cannot do in advance since a better packet may still arrive.
type port struct {
	el    *EventList
	pool  *PacketPool
	ser   serializer
	limit int // packets that may wait (the one being sent excluded, as in ns-2)
	host  bool
	link  Time // the delay of the link behind the port
	free  Time // when the packet being sent is out
	wake  Time // the time of the port's pending event; Never: none
	// sending is the packet that started last; while packets wait, the port chooses the next one
	// when sending reaches the next hop (Run calls wakePort), a link's delay after the link
	// freed: a packet's event that the port shares instead of one of its own. The choice is the
	// one the port would have made when the link freed: every arrival since then made it first
	// (catchUp), so the packets it chooses among are those that were waiting then.
	sending *Packet
	stats   QueueStats
}

func newPort(el *EventList, pool *PacketPool, rate Rate, limit int, host bool) port {
	return port{el: el, pool: pool, ser: newSerializer(rate), limit: limit, host: host, wake: Never}
}

// SetLink sets the delay of the link behind the port.
func (q *port) SetLink(delay Time) { q.link = delay }

// Stats returns what the queue counted.
func (q *port) Stats() QueueStats { return q.stats }

// idle says whether the link has sent everything it started.
func (q *port) idle() bool { return q.free <= q.el.now }

// send starts sending p now.
func (q *port) send(p *Packet) { q.sendAt(q.el.now, p) }

// sendAt starts sending p at start, now or the earlier moment the link freed (catchUp).
func (q *port) sendAt(start Time, p *Packet) {
	q.free = start + q.ser.time(int(p.Size))
	q.sending = p
	q.el.Hops++
	if q.host && p.Origin != nil {
		p.Origin.LeftHost(p, q.free)
	}
	if at := q.free + q.link; !q.el.SchedulePacketNear(at, p) {
		q.el.SchedulePacket(at, p)
	}
}

// wakeWhenFree asks for src.DoNextEvent when the link frees.
func (q *port) wakeWhenFree(src Source) {
	if q.wake != q.free {
		q.wake = q.free
		q.el.Schedule(q.free, src)
	}
}

// waitOn arranges for the port to choose its next packet when the link frees: through the
// packet being sent, or, at a host, with an event at that moment, so that a sender learns when
// each packet leaves (LeftHost) when it happens.
func (q *port) waitOn(src Source) {
	if q.host || q.link == 0 {
		q.wakeWhenFree(src)
		return
	}
	q.sending.wakePrev = true
}

// wakePort is Run's call to the port that sent a packet marked wakePrev.
func wakePort(s Sink) {
	switch q := s.(type) {
	case *PrioQueue:
		q.catchUp()
	case *PFabricQueue:
		q.catchUp()
	}
}

// woken says whether the event now running is the port's pending one (not one made stale by an
// arrival at the same picosecond that chose the next packet first), and clears it.
func (q *port) woken() bool {
	if q.el.now != q.wake {
		return false
	}
	q.wake = Never
	return true
}

// drop discards p and counts it.
func (q *port) drop(p *Packet) {
	q.stats.Drops++
	if q.host {
		q.pool.DropAtHost(p, q.el.now)
		return
	}
	q.pool.Put(p)
}

func (q *port) noteLen(n int) {
	if n > q.stats.MaxLen {
		q.stats.MaxLen = n
	}
}
