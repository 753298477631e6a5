package sim

import (
	"math"
	"math/bits"
)

// Source is anything that schedules events: it is called back at the time it asked for.
type Source interface {
	DoNextEvent()
}

// node is one scheduled call's place in the calendar. A packet, by far the most frequent event,
// carries its own node (a packet waits at one place at a time), so scheduling it writes only the
// packet, which is hot, and the head of its bucket: no array of events to grow, to copy into and
// to miss in the cache. Other sources get a node from the event list's pool.
type node struct {
	at   Time
	next *node // the bucket's list
	src  Source
}

// event is a node of the bucket being dispatched, with its time beside it for the sort.
type event struct {
	at Time
	n  *node
}

// farEvent is an event beyond the calendar's horizon: the heap has no order of its own, so seq
// breaks its ties (time, then scheduling order).
type farEvent struct {
	at  Time
	seq uint64
	n   *node
}

func less(a, b *farEvent) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// sortEvents sorts the bucket being dispatched latest first, so that it is dispatched from its
// end. It holds its events latest scheduled first (the bucket's list order), so a stable sort on
// time alone puts, among events of one time, the earliest scheduled last: dispatch order is
// (time, scheduling order). An insertion sort for the handful of events a bucket usually holds, a
// merge through a scratch buffer beyond.
func sortEvents(b []event, scratch *[]event) {
	if len(b) <= 24 {
		insertionSort(b)
		return
	}
	mid := len(b) / 2
	sortEvents(b[:mid], scratch)
	sortEvents(b[mid:], scratch)
	if b[mid-1].at >= b[mid].at {
		return
	}
	tmp := append((*scratch)[:0], b[:mid]...)
	*scratch = tmp
	i, j, k := 0, mid, 0
	for i < len(tmp) && j < len(b) {
		if b[j].at > tmp[i].at {
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

// insertionSort sorts b latest first, stably.
func insertionSort(b []event) {
	for i := 1; i < len(b); i++ {
		if b[i].at <= b[i-1].at {
			continue
		}
		ev := b[i]
		j := i
		for j > 0 && ev.at > b[j-1].at {
			b[j] = b[j-1]
			j--
		}
		b[j] = ev
	}
}

// The calendar: a wheel of buckets of 2^shift ps (by default 2 ns, about half an event of a
// 144-host fabric at load 0.5, where every packet queued in a FIFO has its arrival at the next hop
// scheduled) covering 2^horizonShift ps (268 µs, beyond the minimum RTO), and a heap for what is
// further away. A bit per bucket says whether it holds events, so that narrow buckets cost
// nothing to skip: most hold one event and need no sorting, whose data-dependent branches were
// the price of wide ones. Measured at 144 hosts (5,000 web-search flows, load 0.5), 11 was 3-5%
// faster than 14 to 12 and than 14 without the bits, and 9 was 10-20% slower (a 4 MB wheel), on
// hosts with 2 MB of L2; with less L2 the buckets widen (l2Halvings), 12 on a 1 MB L2.
const (
	defaultShift = 11
	horizonShift = 28
)

// EventList is the simulation's clock and agenda. One EventList per simulation; there is no
// global one. Events are dispatched in (time, scheduling order), exactly as a heap would, but most
// land in a calendar wheel: almost every event of a packet network is due within microseconds, so
// pushing onto a bucket's list and sorting the few events of a bucket when it comes due costs less
// than sifting a heap (profiling showed the heap at 45% of a run).
type EventList struct {
	now Time
	seq uint64

	wheel     []*node // per bucket, its events, the latest scheduled first
	shift     uint    // a bucket spans 2^shift ps
	wheelSize int64   // buckets
	wheelMask int64
	occupied  []uint64 // a bit per bucket of the wheel: it holds events
	cur       int64    // absolute index of the bucket being dispatched: ready
	// horizon is cur + wheelSize, the first bucket beyond the wheel, kept rather than added up
	// so that SchedulePacketNear stays within the compiler's inlining budget.
	horizon int64
	// next is the first bucket after cur that holds events, as peek found it and filing since
	// kept it, so that advance need not search again; 0 when not known (cur is never negative).
	next     int64
	ready    []event   // the current bucket's events, latest first: the next is the last
	inWheel  int       // events in the wheel, ready excluded
	far      eventHeap // events beyond the wheel's horizon
	farFirst int64     // the bucket of the heap's earliest event; math.MaxInt64 if none
	free     *node     // nodes for events that are not packets
	scratch  []event   // for sorting a bucket

	events uint64 // events dispatched
	// Hops counts packets that left a queue onto a link (data and ACKs), the packet-hops of the
	// performance figures.
	Hops uint64
	stop bool
	// peeked is where peek puts what it reads, so that the compiler keeps the reads.
	peeked Sink
}

// NewEventList returns an empty event list at time 0, sized for a network of about 144 hosts.
func NewEventList() *EventList { return NewEventListScaled(1) }

// NewEventListScaled returns an event list for a network scale times as busy as 144 hosts at 10
// Gb/s (about 250 events per simulated µs at load 0.5): buckets are narrower by the power of two
// nearest to scale, so that each still holds about as many events, down to 1 ns (a 2 MB wheel):
// narrower, the wheel outgrows the cache (measured at 576 and 2,304 hosts). On a host with less
// L2 than the 2 MB those widths were measured with, buckets are wider by as many powers of two,
// so that the wheel keeps the same share of the cache (see l2Halvings).
func NewEventListScaled(scale float64) *EventList {
	return newEventList(scale, l2Halvings())
}

// newEventList is NewEventListScaled with buckets 2^wider times as wide.
func newEventList(scale float64, wider uint) *EventList {
	shift := uint(defaultShift)
	for s := scale; s >= 1.5 && shift > 10; s /= 2 {
		shift--
	}
	shift += wider
	n := int64(1) << (horizonShift - shift)
	return &EventList{wheel: make([]*node, n), occupied: make([]uint64, n/64), shift: shift, wheelSize: n, wheelMask: n - 1,
		horizon: n, farFirst: math.MaxInt64}
}

// Now is the current simulated time.
func (e *EventList) Now() Time { return e.now }

// BucketWidth is the time a bucket of the calendar spans: set by the network's scale and the
// host's L2 (NewEventListScaled), a matter of speed only, which a run's figures should name.
func (e *EventList) BucketWidth() Time { return 1 << e.shift }

// Events is the number of events dispatched so far.
func (e *EventList) Events() uint64 { return e.events }

// Pending is the number of events scheduled and not yet dispatched.
func (e *EventList) Pending() int { return e.inWheel + len(e.ready) + len(e.far) }

// Schedule asks for src.DoNextEvent at time at (not before now). A packet must not be scheduled
// again before its event has run, nor before its route is set (SetRoute makes it its own event's
// source).
func (e *EventList) Schedule(at Time, src Source) {
	if p, ok := src.(*Packet); ok {
		e.SchedulePacket(at, p)
		return
	}
	n := e.newNode()
	n.src = src
	e.insert(at, n)
}

// SchedulePacket asks for p to reach its next hop at time at: Schedule for the most frequent
// event, without asking what its source is. Ports, which schedule a packet on every hop, call
// SchedulePacketNear inlined instead.
func (e *EventList) SchedulePacket(at Time, p *Packet) {
	if !e.SchedulePacketNear(at, p) {
		e.insertOutside(at, &p.ev)
	}
}

// SchedulePacketNear is SchedulePacket's common case, small enough to be inlined in the ports:
// it files p when at falls in a later bucket of the wheel and reports false otherwise, when the
// caller must call SchedulePacket. An event in a later bucket is never in the past, so the check
// for that is left to the rare cases. Its inlining cost is 79 of the compiler's budget of 80, and
// SchedulePacket, which adds the fallback call, costs 151: that is why each port writes the two
// lines "near, else SchedulePacket" itself rather than calling one helper.
func (e *EventList) SchedulePacketNear(at Time, p *Packet) bool {
	b := int64(at) >> (e.shift & 63) // masked: no check for shifts of 64 and more
	if b <= e.cur || b >= e.horizon {
		return false
	}
	p.ev.at = at // p.ev.src is p since SetRoute
	e.file(b, &p.ev)
	return true
}

// insert files n, due at at, wherever it belongs.
func (e *EventList) insert(at Time, n *node) {
	b := int64(at) >> (e.shift & 63)
	if b > e.cur && b < e.horizon {
		n.at = at
		e.file(b, n)
		return
	}
	e.insertOutside(at, n)
}

// insertOutside files n in the current bucket or beyond the horizon: the rare cases, out of line
// so that insert stays small.
func (e *EventList) insertOutside(at Time, n *node) {
	if at < e.now {
		panic("sim: event scheduled in the past")
	}
	n.at = at
	if int64(at)>>(e.shift&63) <= e.cur {
		e.insertCurrent(event{at, n})
		return
	}
	e.seq++
	e.far.push(farEvent{at, e.seq, n})
	e.noteFarFirst()
}

// noteFarFirst sets farFirst after the far heap changed.
func (e *EventList) noteFarFirst() {
	e.farFirst = math.MaxInt64
	if len(e.far) > 0 {
		e.farFirst = int64(e.far[0].at) >> (e.shift & 63)
	}
}

func (e *EventList) newNode() *node {
	n := e.free
	if n == nil {
		return &node{}
	}
	e.free = n.next
	return n
}

// insertCurrent keeps the current bucket sorted: ev is the latest scheduled, so it is dispatched
// after every event due at or before its time, and goes in front of them in ready.
func (e *EventList) insertCurrent(ev event) {
	i := len(e.ready)
	for i > 0 && e.ready[i-1].at <= ev.at {
		i--
	}
	e.ready = append(e.ready, event{})
	copy(e.ready[i+1:], e.ready[i:])
	e.ready[i] = ev
}

// Stop makes Run return after the current event.
func (e *EventList) Stop() { e.stop = true }

// Run dispatches events in time order until none is left, Stop is called, or the next event is
// after until. It returns the time reached.
func (e *EventList) Run(until Time) Time {
	e.stop = false
	for !e.stop {
		var ev event
		if last := len(e.ready) - 1; last >= 0 {
			ev = e.ready[last]
			e.ready = e.ready[:last]
		} else if ev = e.advance(); ev.n == nil {
			break
		}
		if ev.at > until {
			e.ready = append(e.ready, ev) // not yet: back at the end, where it comes next
			e.now = until
			return e.now
		}
		e.now = ev.at
		e.events++
		n := ev.n
		// Most events are packets reaching a hop: call them directly, not through the interface.
		if p, ok := n.src.(*Packet); ok {
			if p.wakePrev {
				// The port that sent p has packets waiting and chooses the next one now, as it
				// would have when its link freed (port.waitOn): one event for two.
				p.wakePrev = false
				wakePort(p.route[p.hop-1])
			}
			p.SendOn()
			continue
		}
		src := n.src
		n.src, n.next, e.free = nil, e.free, n
		src.DoNextEvent()
	}
	return e.now
}

// advance moves the wheel to the next bucket that holds events and returns its first event,
// leaving the others sorted in ready; an event with a nil node if no event is left.
func (e *EventList) advance() event {
	switch {
	case e.next != 0:
		e.cur = e.next
	case e.inWheel > 0:
		e.cur = e.nextOccupied()
	case len(e.far) > 0:
		e.cur = e.farFirst // skip the empty stretch
	default:
		return event{}
	}
	e.next = 0
	e.horizon = e.cur + e.wheelSize
	// Far events entering the horizon go first: they were scheduled before anything the wheel
	// could hold for these buckets. None is due before cur: each was beyond the horizon of a
	// bucket before cur, which the wheel's buckets are not.
	for e.farFirst < e.horizon {
		ev := e.far.pop()
		e.noteFarFirst()
		e.file(int64(ev.at)>>(e.shift&63), ev.n)
	}
	i := e.cur & e.wheelMask
	n := e.wheel[i]
	e.wheel[i] = nil
	e.occupied[i>>6] &^= 1 << (i & 63)
	if n.next == nil {
		// One event, the common case with buckets this narrow: nothing to sort, no ready.
		e.inWheel--
		e.peek()
		return event{n.at, n}
	}
	r := e.ready[:0]
	for ; n != nil; n = n.next {
		r = append(r, event{n.at, n})
	}
	e.inWheel -= len(r)
	// Peeking here too, the next bucket's packet has this bucket's events' time to arrive, and
	// the next advance finds next set, as it does after a bucket of one: the branch on it is
	// one the predictor gets right.
	e.peek()
	sortEvents(r, &e.scratch)
	last := len(r) - 1
	e.ready = r[:last]
	return r[last]
}

// peek reads the packet of the next occupied bucket and its route's next entry, so that their
// cache lines, which are usually outside L2 by then, are on their way while this bucket's events
// run. The next bucket may still gain an earlier event; then the reads were wasted, never wrong.
// Measured side by side (bench/sim/ab, both cores running simulators, as fig9's workers do): TCP
// median 1.046 over 8 pairs and 1.072 over 14, DCTCP 1.040 over 10, pFabric 1.010 over 8; after
// buckets of several events too, TCP 1.063 over 12 more (all faster), pFabric 1.083 over 8.
func (e *EventList) peek() {
	if e.inWheel == 0 {
		return
	}
	e.next = e.nextOccupied()
	h := e.wheel[e.next&e.wheelMask]
	if p, ok := h.src.(*Packet); ok && int(p.hop) < len(p.route) {
		e.peeked = p.route[p.hop]
	}
}

// file pushes n onto bucket b's list (b in the wheel's horizon).
func (e *EventList) file(b int64, n *node) {
	i := b & e.wheelMask
	n.next = e.wheel[i]
	e.wheel[i] = n
	e.occupied[i>>6] |= 1 << (i & 63)
	e.inWheel++
	if b < e.next {
		e.next = b
	}
}

// nextOccupied is the first bucket after cur that holds events (the wheel holds some): a word
// of the occupancy bits covers 64 buckets, so empty stretches cost next to nothing.
func (e *EventList) nextOccupied() int64 {
	from := (e.cur + 1) & e.wheelMask
	w := from >> 6
	word := e.occupied[w] &^ (1<<(from&63) - 1)
	for word == 0 {
		w = (w + 1) & (int64(len(e.occupied)) - 1)
		word = e.occupied[w]
	}
	i := w<<6 | int64(bits.TrailingZeros64(word))
	return e.cur + 1 + (i-from)&e.wheelMask
}

// eventHeap is a 4-ary min-heap of events, for the far future.
type eventHeap []farEvent

func (h *eventHeap) push(ev farEvent) {
	*h = append(*h, ev)
	h.up(len(*h)-1, ev)
}

// up puts ev at hole i or above it.
func (h eventHeap) up(i int, ev farEvent) {
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
func (h *eventHeap) pop() farEvent {
	s := *h
	top := s[0]
	last := len(s) - 1
	ev := s[last]
	s[last] = farEvent{}
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
