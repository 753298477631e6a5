package sim

import "slices"

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

// sortEvents sorts a bucket: by insertion for the few events a bucket usually holds.
func sortEvents(b []event) {
	if len(b) > 32 {
		slices.SortFunc(b, func(x, y event) int {
			if less(&x, &y) {
				return -1
			}
			return 1 // no two events are equal: seq is unique
		})
		return
	}
	for i := 1; i < len(b); i++ {
		ev := b[i]
		j := i
		for j > 0 && less(&ev, &b[j-1]) {
			b[j] = b[j-1]
			j--
		}
		b[j] = ev
	}
}

// The calendar: a wheel of buckets of 2^shift ps (by default 65.5 ns, shorter than any packet's
// serialization at 40 Gb/s but an ACK's) covering 2^horizonShift ps (268 µs, beyond the minimum
// RTO), and a heap for what is further away.
const (
	defaultShift = 16
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

	events uint64 // events dispatched
	// Hops counts packets that left a queue onto a link (data and ACKs), the packet-hops of the
	// performance figures.
	Hops uint64
	stop bool
}

// NewEventList returns an empty event list at time 0, sized for a network of about 144 hosts.
func NewEventList() *EventList { return NewEventListScaled(1) }

// NewEventListScaled returns an event list for a network scale times as busy as 144 hosts at 10
// Gb/s (about 200 events per simulated µs): buckets are narrower by the power of two nearest to
// scale, so that each still holds about a dozen events.
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
		e.wheel[b&e.wheelMask] = append(e.wheel[b&e.wheelMask], ev)
	}
	e.inWheel++
}

// insertCurrent keeps the current bucket sorted: ev has the highest seq yet, so it goes after
// every event due at or before its time.
func (e *EventList) insertCurrent(ev event) {
	bucket := e.wheel[e.cur&e.wheelMask]
	i := len(bucket)
	for i > e.pos && bucket[i-1].at > ev.at {
		i--
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
		next.src.DoNextEvent()
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
		e.wheel[e.cur&e.wheelMask] = bucket[:0]
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
			b := int64(ev.at) >> e.shift
			e.wheel[b&e.wheelMask] = append(e.wheel[b&e.wheelMask], ev)
			e.inWheel++
		}
		sortEvents(e.wheel[e.cur&e.wheelMask])
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
