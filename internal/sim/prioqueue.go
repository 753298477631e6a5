package sim

// Levels is the number of strict-priority classes a switch port has: one per QJump level
// (802.1Q gives eight).
const Levels = 8

// PrioQueue is an output port that serves eight FIFOs in strict priority by packet level (7
// first), as QJump asks of switches (paper §3.3: each level on its own hardware priority). The
// ports of real switches share their buffer between priorities; a full buffer makes room for a
// packet by pushing out the newest packet of the lowest level below it, else drops the arrival,
// so lower levels can never fill the buffer against higher ones.
type PrioQueue struct {
	port
	level      [Levels]FIFO
	waiting    int
	levelDrops [Levels]int
}

// LevelDrops is the number of packets of level l dropped or pushed out.
func (q *PrioQueue) LevelDrops(l int) int { return q.levelDrops[l] }

// NewPrioQueue returns a strict-priority port of limit packets (all levels together).
func NewPrioQueue(el *EventList, pool *PacketPool, rate Rate, limit int, host bool) *PrioQueue {
	return &PrioQueue{port: newPort(el, pool, rate, limit, host)}
}

// Len is the number of packets waiting at all levels.
func (q *PrioQueue) Len() int { return q.waiting }

// LevelLen is the number of packets waiting at level l.
func (q *PrioQueue) LevelLen(l int) int { return q.level[l].Len() }

// Receive enqueues p at its level, or sends it if the link is idle.
func (q *PrioQueue) Receive(p *Packet) {
	// Departures due by now come first, those at this very picosecond too, as in Queue.
	q.catchUp()
	if q.idle() {
		q.send(p)
		return
	}
	if q.waiting >= q.limit && !q.pushOut(int(p.Level)) {
		q.levelDrops[p.Level&(Levels-1)]++
		q.drop(p)
		return
	}
	q.level[p.Level&(Levels-1)].Push(p)
	q.waiting++
	q.noteLen(q.waiting)
	q.waitOn(q)
}

// catchUp starts, at each moment the link freed since the port last chose, the packet it would
// have chosen then, and waits on the last one if packets are still waiting.
func (q *PrioQueue) catchUp() {
	if q.waiting == 0 {
		return
	}
	for q.waiting > 0 && q.free <= q.el.now {
		q.sendNextAt(q.free)
	}
	if q.waiting > 0 {
		q.waitOn(q)
	}
}

// pushOut drops the newest packet of the lowest non-empty level below l.
func (q *PrioQueue) pushOut(l int) bool {
	for low := 0; low < l; low++ {
		if q.level[low].Len() > 0 {
			q.levelDrops[low]++
			q.drop(q.level[low].PopTail())
			q.waiting--
			return true
		}
	}
	return false
}

// DoNextEvent: the link is free; start the highest-level waiting packet.
func (q *PrioQueue) DoNextEvent() {
	if q.woken() {
		q.sendNext()
	}
}

func (q *PrioQueue) sendNext() {
	q.wake = Never
	q.sendNextAt(q.el.now)
	if q.waiting > 0 {
		q.waitOn(q)
	}
}

// sendNextAt starts the highest-level waiting packet at start.
func (q *PrioQueue) sendNextAt(start Time) {
	for l := Levels - 1; l >= 0; l-- {
		if q.level[l].Len() > 0 {
			q.waiting--
			q.sendAt(start, q.level[l].Pop())
			return
		}
	}
}
