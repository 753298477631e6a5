package sim

// Source is anything that schedules events: it is called back at the time it asked for.
type Source interface {
	DoNextEvent()
}

// event is one scheduled call. seq breaks ties between events at the same picosecond in the
// order they were scheduled, which is what makes a run deterministic.
type event struct {
	at  Time
	seq uint64
	src Source
}

func less(a, b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// sortEvents sorts a bucket by time. A bucket holds its events in the order they were scheduled
// (see peek), so a stable sort on time alone gives (time, scheduling order) without comparing seq:
// an insertion sort for the dozen or so events a bucket usually holds, a merge through a scratch
// buffer beyond.
func sortEvents(b []event, scratch *[]event) {
	if len(b) <= 24 {
		insertionSort(b)
		return
	}
	mid := len(b) / 2
	sortEvents(b[:mid], scratch)
	sortEvents(b[mid:], scratch)
	if b[mid-1].at <= b[mid].at {
		return
	}
	tmp := append((*scratch)[:0], b[:mid]...)
	*scratch = tmp
	i, j, k := 0, mid, 0
	for i < len(tmp) && j < len(b) {
		if b[j].at < tmp[i].at {
			b[k] = b[j]
			j++
		} else {
			b[k] = tmp[i]
			i++
		}
		k++
	}
	copy(b[k:], tmp[i:])
	clear(tmp) // no stale copies: they would keep finished flows alive
}

func insertionSort(b []event) {
	for i := 1; i < len(b); i++ {
		if b[i].at >= b[i-1].at {
			continue
		}
		ev := b[i]
		j := i
		for j > 0 && ev.at < b[j-1].at {
			b[j] = b[j-1]
			j--
		}
		b[j] = ev
	}
}

// The calendar: a wheel of buckets of 2^shift ps (by default 16.4 ns, about five events of a
// 144-host fabric at load 0.5, where every packet queued in a FIFO has its arrival at the next hop
// scheduled) covering 2^horizonShift ps (268 µs, beyond the minimum RTO), and a heap for what is
// further away. Measured at 144 hosts, 14 was as fast as or faster than 13 to 16.
const (
	defaultShift = 14
	horizonShift = 28
)

// EventList is the simulation's clock and agenda. One EventList per simulation; there is no
// global one. Events are dispatched in (time, scheduling order), exactly as a heap would, but most
// land in a calendar wheel: almost every event of a packet network is due within microseconds, so
// appending to a bucket and sorting the few events of a bucket when it comes due costs less than
// sifting a heap (profiling showed the heap at 45% of a run).
type EventList struct {
	now Time
	seq uint64

	wheel     [][]event
	shift     uint  // a bucket spans 2^shift ps
	wheelSize int64 // buckets
	wheelMask int64
	cur       int64 // absolute index of the current bucket, whose events from pos on are sorted
	pos       int
	inWheel   int       // events in the wheel
	far       eventHeap // events beyond the wheel's horizon
	spares    spares    // bucket arrays not in use
	scratch   []event   // for sorting a bucket

	events uint64 // events dispatched
	// Hops counts packets that left a queue onto a link (data and ACKs), the packet-hops of the
	// performance figures.
	Hops uint64
	stop bool
}

// NewEventList returns an empty event list at time 0, sized for a network of about 144 hosts.
func NewEventList() *EventList { return NewEventListScaled(1) }

// NewEventListScaled returns an event list for a network scale times as busy as 144 hosts at 10
// Gb/s (about 250 events per simulated µs at load 0.5): buckets are narrower by the power of two
// nearest to scale, so that each still holds about as many events.
func NewEventListScaled(scale float64) *EventList {
	shift := uint(defaultShift)
	for s := scale; s >= 1.5 && shift > 8; s /= 2 {
		shift--
	}
	n := int64(1) << (horizonShift - shift)
	return &EventList{wheel: make([][]event, n), shift: shift, wheelSize: n, wheelMask: n - 1}
}

// Now is the current simulated time.
func (e *EventList) Now() Time { return e.now }

// Events is the number of events dispatched so far.
func (e *EventList) Events() uint64 { return e.events }

// Pending is the number of events scheduled and not yet dispatched.
func (e *EventList) Pending() int { return e.inWheel + len(e.far) }

// Schedule asks for src.DoNextEvent at time at (not before now).
func (e *EventList) Schedule(at Time, src Source) {
	if at < e.now {
		panic("sim: event scheduled in the past")
	}
	e.seq++
	ev := event{at: at, seq: e.seq, src: src}
	b := int64(at) >> e.shift
	switch {
	case b >= e.cur+e.wheelSize:
		e.far.push(ev)
		return
	case b <= e.cur:
		e.insertCurrent(ev)
	default:
		e.appendTo(b, ev)
	}
	e.inWheel++
}

// appendTo appends ev to bucket b. A bucket's array comes from spares and goes back there once
// the bucket is dispatched: the arrays in use then number about the events pending, not the
// buckets times the most a bucket ever held (9 MB at 144 hosts, which kept the caches cold).
func (e *EventList) appendTo(b int64, ev event) {
	slot := &e.wheel[b&e.wheelMask]
	if len(*slot) == cap(*slot) {
		*slot = e.spares.grow(*slot)
	}
	*slot = append(*slot, ev)
}

// insertCurrent keeps the current bucket sorted: ev has the highest seq yet, so it goes after
// every event due at or before its time.
func (e *EventList) insertCurrent(ev event) {
	bucket := e.wheel[e.cur&e.wheelMask]
	i := len(bucket)
	for i > e.pos && bucket[i-1].at > ev.at {
		i--
	}
	if len(bucket) == cap(bucket) {
		bucket = e.spares.grow(bucket)
	}
	bucket = append(bucket, event{})
	copy(bucket[i+1:], bucket[i:])
	bucket[i] = ev
	e.wheel[e.cur&e.wheelMask] = bucket
}

// Stop makes Run return after the current event.
func (e *EventList) Stop() { e.stop = true }

// Run dispatches events in time order until none is left, Stop is called, or the next event is
// after until. It returns the time reached.
func (e *EventList) Run(until Time) Time {
	e.stop = false
	for !e.stop {
		ev := e.peek()
		if ev == nil {
			break
		}
		if ev.at > until {
			e.now = until
			return e.now
		}
		next := *ev
		*ev = event{}
		e.pos++
		e.inWheel--
		e.now = next.at
		e.events++
		// Most events are packets reaching a hop: call them directly, not through the interface.
		if p, ok := next.src.(*Packet); ok {
			p.SendOn()
		} else {
			next.src.DoNextEvent()
		}
	}
	return e.now
}

// peek returns the next event, advancing the wheel to the bucket that holds it; nil if none.
func (e *EventList) peek() *event {
	for {
		bucket := e.wheel[e.cur&e.wheelMask]
		if e.pos < len(bucket) {
			return &bucket[e.pos]
		}
		e.spares.put(bucket)
		e.wheel[e.cur&e.wheelMask] = nil
		e.pos = 0
		switch {
		case e.inWheel > 0:
			e.cur++
		case len(e.far) > 0:
			e.cur = int64(e.far[0].at) >> e.shift // skip the empty stretch
		default:
			return nil
		}
		for len(e.far) > 0 && int64(e.far[0].at)>>e.shift < e.cur+e.wheelSize {
			ev := e.far.pop()
			e.appendTo(int64(ev.at)>>e.shift, ev)
			e.inWheel++
		}
		sortEvents(e.wheel[e.cur&e.wheelMask], &e.scratch)
	}
}

// eventHeap is a 4-ary min-heap of events, for the far future.
type eventHeap []event

func (h *eventHeap) push(ev event) {
	*h = append(*h, ev)
	h.up(len(*h)-1, ev)
}

// up puts ev at hole i or above it.
func (h eventHeap) up(i int, ev event) {
	for i > 0 {
		parent := (i - 1) / 4
		if !less(&ev, &h[parent]) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = ev
}

// pop removes the earliest event: the hole at the root goes down to a leaf along the smallest
// children, then the last element is lifted from there (Floyd), a comparison saved per level.
func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	last := len(s) - 1
	ev := s[last]
	s[last] = event{}
	s = s[:last]
	*h = s
	if last == 0 {
		return top
	}
	i := 0
	for {
		first := 4*i + 1
		if first >= last {
			break
		}
		best := first
		for c := first + 1; c < min(first+4, last); c++ {
			if less(&s[c], &s[best]) {
				best = c
			}
		}
		s[i] = s[best]
		i = best
	}
	s.up(i, ev)
	return top
}

// spares keeps bucket arrays by capacity (4 << class events), most recently used first, so that
// the arrays in use stay few and warm.
type spares [24][][]event

const minBucket = 4

func (s *spares) put(b []event) {
	c := cap(b)
	if c < minBucket || c&(c-1) != 0 {
		return // not one of ours (capacities are minBucket << class)
	}
	class := 0
	for c > minBucket {
		c >>= 1
		class++
	}
	s[class] = append(s[class], b[:0])
}

// grow returns an array of twice b's capacity (at least minBucket) holding b's events, and
// keeps b for reuse.
func (s *spares) grow(b []event) []event {
	class, c := 0, minBucket
	for c < 2*cap(b) {
		c <<= 1
		class++
	}
	var nb []event
	if n := len(s[class]); n > 0 {
		nb = s[class][n-1]
		s[class] = s[class][:n-1]
	} else {
		nb = make([]event, 0, c)
	}
	nb = append(nb, b...)
	clear(b) // a stale copy would keep a finished flow's sender from the garbage collector
	s.put(b)
	return nb
}
