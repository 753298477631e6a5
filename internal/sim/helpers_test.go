package sim

// recorder is a sink that notes when each packet arrives and frees it.
type recorder struct {
	el    *EventList
	pool  *PacketPool
	times []Time
	seqs  []int32
}

func (r *recorder) Receive(p *Packet) {
	r.times = append(r.times, r.el.Now())
	r.seqs = append(r.seqs, p.Seq)
	r.pool.Put(p)
}

// call is a Source running a function.
type call func()

func (c call) DoNextEvent() { c() }

// inject sends a packet of size bytes and level l along route at time at.
func inject(el *EventList, pool *PacketPool, at Time, route Route, seq int32, size int32, prio int64, level uint8) {
	el.Schedule(at, call(func() {
		p := pool.Get()
		p.Seq, p.Size, p.Prio, p.Level, p.Flow = seq, size, prio, level, seq
		p.SetRoute(route)
		p.SendOn()
	}))
}

// firstDiff is the index of the first element where a and b differ (the shorter's length if one
// is a prefix of the other), or -1 if they are equal.
func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
