package sim

// PFabricQueue is pFabric's switch port (Alizadeh et al., "pFabric: Minimal Near-Optimal
// Datacenter Transport", SIGCOMM 2013, §4.1): a small buffer in which every packet carries its
// flow's remaining size as priority. Dequeue: find the highest-priority (smallest) packet and send
// the earliest waiting packet of that packet's flow, which keeps each flow in order and prevents
// starvation. Enqueue into a full buffer: drop the lowest-priority packet, the arrival included.
// The buffer is a few dozen packets, so linear scans beat any index.
type PFabricQueue struct {
	port
	waiting []*Packet // arrival order
}

// NewPFabricQueue returns a pFabric port of limit packets.
func NewPFabricQueue(el *EventList, pool *PacketPool, rate Rate, limit int, host bool) *PFabricQueue {
	return &PFabricQueue{port: newPort(el, pool, rate, limit, host), waiting: make([]*Packet, 0, limit+1)}
}

// Len is the number of packets waiting.
func (q *PFabricQueue) Len() int { return len(q.waiting) }

// Receive enqueues p, dropping the worst packet if the buffer is full, or sends it if the link
// is idle.
func (q *PFabricQueue) Receive(p *Packet) {
	// Departures due by now come first, those at this very picosecond too, as in Queue.
	q.catchUp()
	if q.idle() {
		q.send(p)
		return
	}
	q.enqueue(p)
	if len(q.waiting) > 0 {
		q.waitOn(q)
	}
}

// catchUp starts, at each moment the link freed since the port last chose, the packet it would
// have chosen then, and waits on the last one if packets are still waiting.
func (q *PFabricQueue) catchUp() {
	if len(q.waiting) == 0 {
		return
	}
	for len(q.waiting) > 0 && q.free <= q.el.now {
		q.sendAt(q.free, q.remove(q.next()))
	}
	if len(q.waiting) > 0 {
		q.waitOn(q)
	}
}

func (q *PFabricQueue) enqueue(p *Packet) {
	if len(q.waiting) >= q.limit {
		worst := q.worst()
		if q.waiting[worst].Prio <= p.Prio {
			q.drop(p)
			return
		}
		q.drop(q.remove(worst))
	}
	q.waiting = append(q.waiting, p)
	q.noteLen(len(q.waiting))
}

// worst is the index of the lowest-priority packet, the latest among equals.
func (q *PFabricQueue) worst() int {
	w := 0
	for i, p := range q.waiting {
		if p.Prio >= q.waiting[w].Prio {
			w = i
		}
	}
	return w
}

// next is the index of the packet to send: the earliest packet of the flow that holds the
// highest-priority packet (the earliest such on ties).
func (q *PFabricQueue) next() int {
	best := 0
	for i, p := range q.waiting {
		if p.Prio < q.waiting[best].Prio {
			best = i
		}
	}
	b := q.waiting[best]
	for i, p := range q.waiting[:best] {
		if p.Flow == b.Flow && p.IsAck == b.IsAck {
			return i
		}
	}
	return best
}

func (q *PFabricQueue) remove(i int) *Packet {
	p := q.waiting[i]
	copy(q.waiting[i:], q.waiting[i+1:])
	q.waiting[len(q.waiting)-1] = nil
	q.waiting = q.waiting[:len(q.waiting)-1]
	return p
}

// DoNextEvent: the link is free; start the next packet by priority.
func (q *PFabricQueue) DoNextEvent() {
	if q.woken() {
		q.sendNext()
	}
}

func (q *PFabricQueue) sendNext() {
	q.wake = Never
	if len(q.waiting) > 0 {
		q.send(q.remove(q.next()))
	}
	if len(q.waiting) > 0 {
		q.waitOn(q)
	}
}
