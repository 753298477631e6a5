package sim

// QueueStats are what a queue counts.
type QueueStats struct {
	Drops  uint64 // packets dropped on arrival or pushed out
	Marks  uint64 // packets marked CE
	MaxLen int    // most packets waiting at once
}

// port is the transmitter every queue discipline shares: it serializes one packet at a time at
// the link rate and hands it to the next hop when its last bit is out (store and forward).
type port struct {
	el    *EventList
	pool  *PacketPool
	ser   serializer
	limit int // packets that may wait (the one being sent excluded, as in ns-2)
	host  bool
	busy  *Packet
	stats QueueStats
}

func newPort(el *EventList, pool *PacketPool, rate Rate, limit int, host bool) port {
	return port{el: el, pool: pool, ser: newSerializer(rate), limit: limit, host: host}
}

// Stats returns what the queue counted.
func (q *port) Stats() QueueStats { return q.stats }

// transmit starts sending p; the caller's DoNextEvent runs when it is out.
func (q *port) transmit(p *Packet, src Source) {
	q.busy = p
	q.el.Schedule(q.el.now+q.ser.time(int(p.Size)), src)
}

// finish takes the packet that has just been sent.
func (q *port) finish() *Packet {
	p := q.busy
	q.busy = nil
	q.el.Hops++
	if q.host && p.Origin != nil {
		p.Origin.LeftHost(p)
	}
	return p
}

// drop discards p and counts it.
func (q *port) drop(p *Packet) {
	q.stats.Drops++
	if q.host && p.Origin != nil {
		p.Origin.LeftHost(p)
	}
	q.pool.Put(p)
}

func (q *port) noteLen(n int) {
	if n > q.stats.MaxLen {
		q.stats.MaxLen = n
	}
}
