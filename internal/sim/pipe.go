package sim

// Pipe is a link's propagation (and fixed processing) delay. Packets leave in the order they
// entered, so a pipe keeps its packets in a FIFO and needs only one event scheduled at a time.
type Pipe struct {
	el     *EventList
	delay  Time
	flying FIFO
}

// NewPipe returns a pipe of the given delay.
func NewPipe(el *EventList, delay Time) *Pipe { return &Pipe{el: el, delay: delay} }

// Delay is the pipe's one-way delay.
func (p *Pipe) Delay() Time { return p.delay }

// Receive puts pkt on the wire.
func (p *Pipe) Receive(pkt *Packet) {
	pkt.due = p.el.now + p.delay
	if p.flying.Len() == 0 {
		p.el.Schedule(pkt.due, p)
	}
	p.flying.Push(pkt)
}

// DoNextEvent delivers the packet at the head.
func (p *Pipe) DoNextEvent() {
	pkt := p.flying.Pop()
	if p.flying.Len() > 0 {
		p.el.Schedule(p.flying.Peek().due, p)
	}
	pkt.SendOn()
}
