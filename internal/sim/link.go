package sim

// Port is an output port: a queue with the link behind it. A port knows when a packet's last bit
// leaves, so it schedules the packet's arrival at the next hop itself, its link's delay added: a
// hop is one event, and a route lists only ports and the endpoint (no pipes to visit).
type Port interface {
	Sink
	// SetLink sets the one-way delay of the link behind the port (propagation plus the fixed
	// processing at the far end).
	SetLink(delay Time)
}
