package sim

// Pipe is a delay on its own, for a route that needs one without a port in front (the tests'
// small topologies): it holds nothing, a packet entering it is scheduled to reach the next hop
// one delay later (the packet is the event). A port's own link delay is its SetLink, not a pipe.
type Pipe struct {
	el    *EventList
	delay Time
}

// NewPipe returns a pipe of the given delay.
func NewPipe(el *EventList, delay Time) *Pipe { return &Pipe{el: el, delay: delay} }

// Delay is the pipe's one-way delay.
func (p *Pipe) Delay() Time { return p.delay }

// Receive puts pkt on the wire.
func (p *Pipe) Receive(pkt *Packet) { p.el.SchedulePacket(p.el.now+p.delay, pkt) }
