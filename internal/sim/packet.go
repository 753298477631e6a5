package sim

// Sink receives packets: queues, pipes and transport endpoints.
type Sink interface {
	Receive(p *Packet)
}

// Route is the list of sinks a packet visits, the last one its endpoint (htsim's route: the
// packet carries it, so elements need no forwarding tables).
type Route []Sink

// Origin is told when a packet of its own leaves its host's NIC queue (at is now, or later for a
// FIFO that knows its departure in advance; a dropped packet leaves now), so that a sender can
// tell a packet lost in the network from one still waiting at home (Linux checks the same before
// it retransmits on a timeout: skb_still_in_host_queue).
type Origin interface {
	LeftHost(p *Packet, at Time)
}

// Packet is one data packet or acknowledgement. Sizes are wire bytes (header included).
type Packet struct {
	ev node // its place in the event list: a packet is its own event
	// What every hop reads comes first.
	route Route
	hop   int16
	// wakePrev: the port that sent p (route[hop-1]) waits for p's arrival at the next hop to
	// choose its next packet (port.waitOn), instead of an event of its own.
	wakePrev bool
	Size     int32  // wire bytes
	Origin   Origin // nil: nobody to tell when it leaves the host
	Flow     int32  // flow id
	Seq      int32  // data: packet number within the flow; ACK: the packet it acknowledges
	AckNo    int32  // ACK: cumulative, the next packet expected
	IsAck    bool
	CE       bool  // ECN congestion experienced, set by a marking queue
	ECE      bool  // ACK: echoes CE of the data packet it acknowledges
	Level    uint8 // QJump level, 0..7 (7 highest)

	Prio int64   // pFabric priority: remaining flow bytes; lower is served first
	Born Time    // when the application made it (fan-in latency)
	next *Packet // free list
}

// SetRoute sets p's route and puts it at its first hop. It also makes p the source of its own
// event node, once rather than on every hop (the ports' inlined scheduling relies on it).
func (p *Packet) SetRoute(r Route) { p.route, p.hop, p.ev.src = r, 0, p }

// Hop is the index of the next sink p will visit.
func (p *Packet) Hop() int { return int(p.hop) }

// SendOn delivers p to the next sink of its route.
func (p *Packet) SendOn() {
	s := p.route[p.hop]
	p.hop++
	s.Receive(p)
}

// DoNextEvent makes a packet its own event: it reaches its next hop now.
func (p *Packet) DoNextEvent() { p.SendOn() }

// PacketPool recycles packets: a simulation moves hundreds of millions of them and allocating
// each would make the garbage collector the bottleneck. One pool per simulation, not shared.
type PacketPool struct {
	free      *Packet
	allocated int
}

// Get returns a zeroed packet.
func (pp *PacketPool) Get() *Packet {
	p := pp.free
	if p == nil {
		pp.allocated++
		return &Packet{}
	}
	pp.free = p.next
	*p = Packet{}
	return p
}

// Put returns p to the pool; p must not be used afterwards.
func (pp *PacketPool) Put(p *Packet) {
	p.route = nil
	p.Origin = nil
	p.next = pp.free
	pp.free = p
}

// DropAtHost returns p, dropped at its host (by a full NIC queue or a limiter), to the pool,
// telling its sender first that it left the host now: a dropped packet no longer waits at home.
func (pp *PacketPool) DropAtHost(p *Packet, now Time) {
	if p.Origin != nil {
		p.Origin.LeftHost(p, now)
	}
	pp.Put(p)
}

// Allocated is how many packets the pool ever allocated: the peak number alive at once.
func (pp *PacketPool) Allocated() int { return pp.allocated }
