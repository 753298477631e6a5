package sim

// Queue is a FIFO output port with a drop-tail buffer and optional ECN marking: the switch
// queue of the TCP and DCTCP baselines. It marks CE on a packet that arrives to find at least K
// packets waiting (DCTCP's instantaneous-queue marking, Alizadeh et al., SIGCOMM 2010, §3.1).
//
// A FIFO knows when a packet will leave the moment it arrives: when the packets before it are
// out. So the queue schedules nothing of its own: it schedules an accepted packet's arrival at
// the next hop (its departure plus its link's delay), and
// keeps only the times at which the packets still waiting will start, which is all the buffer
// and the marking need to count. A hop is one event instead of three (profiling showed the event
// list at half of a run).
type Queue struct {
	el     *EventList
	pool   *PacketPool
	ser    serializer
	limit  int // packets that may wait (the one being sent excluded, as in ns-2)
	ecnK   int // 0: no marking
	host   bool
	link   Time     // the delay of the link behind the queue
	free   Time     // when the link has sent everything accepted so far
	starts timeRing // start of service of the packets still waiting, in order, and maybe of some sent
	// exactFrom: from this many starts in the ring on, an arrival needs the exact count of the
	// packets waiting (min of MaxLen, limit and ecnK); below it, it cannot change any of them.
	exactFrom int
	stats     QueueStats
}

// NewQueue returns a FIFO of limit packets on a link of rate; ecnK > 0 marks at K packets. host
// says the queue is a host's NIC, whose packets' origins are told when they leave.
func NewQueue(el *EventList, pool *PacketPool, rate Rate, limit, ecnK int, host bool) *Queue {
	return &Queue{el: el, pool: pool, ser: newSerializer(rate), limit: limit, ecnK: ecnK, host: host}
}

// SetLink sets the delay of the link behind the queue.
func (q *Queue) SetLink(delay Time) { q.link = delay }

// Stats returns what the queue counted.
func (q *Queue) Stats() QueueStats { return q.stats }

// Len is the number of packets waiting (not counting the one being sent).
func (q *Queue) Len() int { return q.starts.after(q.el.now) }

// Receive accepts p, drops it if the buffer is full, and passes it on with its departure time.
// Departures at a time come before arrivals at that time.
func (q *Queue) Receive(p *Packet) {
	now := q.el.now
	start := max(now, q.free) // later than now: the link is busy and p waits
	// The ring may still hold the starts of packets already sent, so its length bounds the
	// packets waiting from above. Below the first count that matters (the longest queue so
	// far, the buffer, the marking threshold), nothing depends on the exact count and the ring
	// is pruned later: the prune's loop, whose length varies from packet to packet, was the
	// hop's most mispredicted branch.
	waits := start > now
	if q.starts.len() >= q.exactFrom && waits && !q.count(now, p) {
		return
	}
	// Whether the link is busy alternates from packet to packet as the predictor cannot
	// foresee, so the start is written either way and kept only if p waits.
	q.starts.pushIf(start, b2i(waits))
	q.free = start + q.ser.time(int(p.Size))
	q.el.Hops++
	if q.host && p.Origin != nil {
		p.Origin.LeftHost(p, q.free)
	}
	if at := q.free + q.link; !q.el.SchedulePacketNear(at, p) {
		q.el.SchedulePacket(at, p)
	}
}

// count prunes the ring to the packets waiting when p arrives at a busy link and decides by their
// number: it drops p if the buffer is full (false), marks it at the threshold and notes the
// longest queue, p included.
func (q *Queue) count(now Time, p *Packet) bool {
	q.starts.dropUntil(now)
	n := q.starts.len()
	if n >= q.limit {
		q.drop(p)
		return false
	}
	if q.ecnK > 0 && n >= q.ecnK {
		p.CE = true
		q.stats.Marks++
	}
	if n+1 > q.stats.MaxLen {
		q.stats.MaxLen = n + 1
		q.exactFrom = min(q.stats.MaxLen, q.limit)
		if q.ecnK > 0 {
			q.exactFrom = min(q.exactFrom, q.ecnK)
		}
	}
	return true
}

// drop discards p and counts it.
func (q *Queue) drop(p *Packet) {
	q.stats.Drops++
	if q.host {
		q.pool.DropAtHost(p, q.el.now)
		return
	}
	q.pool.Put(p)
}

// timeRing is a FIFO of times that grows by doubling and never shrinks.
type timeRing struct {
	buf        []Time
	head, size int
}

func (r *timeRing) len() int { return r.size }

// pushIf pushes t if keep is 1 and only writes it if keep is 0: no branch on keep. keep is an int,
// not a bool, so that pushIf stays within the compiler's inlining budget.
func (r *timeRing) pushIf(t Time, keep int) {
	if r.size == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.size)&(len(r.buf)-1)] = t
	r.size += keep
}

// b2i is 1 for true and 0 for false, compiled without a branch.
func b2i(b bool) int {
	n := 0
	if b {
		n = 1
	}
	return n
}

// grow doubles the ring, out of line so that pushIf inlines.
func (r *timeRing) grow() {
	buf := make([]Time, max(2*len(r.buf), 16))
	for i := 0; i < r.size; i++ {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}

// dropUntil removes the times at or before now: packets that have started.
func (r *timeRing) dropUntil(now Time) {
	for r.size > 0 && r.buf[r.head] <= now {
		r.head = (r.head + 1) & (len(r.buf) - 1)
		r.size--
	}
}

// after counts the times later than now.
func (r *timeRing) after(now Time) int {
	n := r.size
	for i := 0; i < r.size && r.buf[(r.head+i)&(len(r.buf)-1)] <= now; i++ {
		n--
	}
	return n
}
