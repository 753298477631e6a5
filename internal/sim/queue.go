package sim

// Queue is a FIFO output port with a drop-tail buffer and optional ECN marking: the switch
// queue of the TCP and DCTCP baselines. It marks CE on a packet that arrives to find at least K
// packets waiting (DCTCP's instantaneous-queue marking, Alizadeh et al., SIGCOMM 2010, §3.1).
type Queue struct {
	port
	waiting FIFO
	ecnK    int // 0: no marking
}

// NewQueue returns a FIFO of limit packets on a link of rate; ecnK > 0 marks at K packets. host
// says the queue is a host's NIC, whose packets' origins are told when they leave.
func NewQueue(el *EventList, pool *PacketPool, rate Rate, limit, ecnK int, host bool) *Queue {
	return &Queue{port: newPort(el, pool, rate, limit, host), ecnK: ecnK}
}

// Len is the number of packets waiting (not counting the one being sent).
func (q *Queue) Len() int { return q.waiting.Len() }

// Receive enqueues p or drops it if the buffer is full.
func (q *Queue) Receive(p *Packet) {
	if q.busy == nil {
		q.transmit(p, q)
		return
	}
	n := q.waiting.Len()
	if n >= q.limit {
		q.drop(p)
		return
	}
	if q.ecnK > 0 && n >= q.ecnK {
		p.CE = true
		q.stats.Marks++
	}
	q.waiting.Push(p)
	q.noteLen(n + 1)
}

// DoNextEvent: the packet in service is out; send it on and start the next.
func (q *Queue) DoNextEvent() {
	p := q.finish()
	if q.waiting.Len() > 0 {
		q.transmit(q.waiting.Pop(), q)
	}
	p.SendOn()
}
