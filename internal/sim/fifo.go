package sim

// FIFO is a queue of packets that grows by doubling and never shrinks: after warm-up a queue
// moves packets without allocating.
type FIFO struct {
	buf        []*Packet
	head, size int
}

func (r *FIFO) Len() int { return r.size }

func (r *FIFO) Push(p *Packet) {
	if r.size == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.size)&(len(r.buf)-1)] = p
	r.size++
}

func (r *FIFO) Pop() *Packet {
	p := r.buf[r.head]
	r.buf[r.head] = nil
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.size--
	return p
}

func (r *FIFO) Peek() *Packet { return r.buf[r.head] }

// PopTail removes the most recently pushed packet.
func (r *FIFO) PopTail() *Packet {
	i := (r.head + r.size - 1) & (len(r.buf) - 1)
	p := r.buf[i]
	r.buf[i] = nil
	r.size--
	return p
}

func (r *FIFO) grow() {
	n := 2 * len(r.buf)
	if n == 0 {
		n = 16
	}
	buf := make([]*Packet, n)
	for i := 0; i < r.size; i++ {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}
