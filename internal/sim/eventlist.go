package sim

// Source is anything that schedules events: it is called back at the time it asked for.
type Source interface {
	DoNextEvent()
}

// event is one entry of the heap. seq breaks ties between events at the same picosecond in the
// order they were scheduled, which is what makes a run deterministic.
type event struct {
	at  Time
	seq uint64
	src Source
}

// EventList is the simulation's clock and agenda: a typed 4-ary min-heap of events (no
// container/heap, no boxing). One EventList per simulation; there is no global one.
type EventList struct {
	now    Time
	seq    uint64
	heap   []event
	events uint64 // events dispatched
	// Hops counts packets that left a queue onto a link (data and ACKs), the packet-hops of the
	// performance figures.
	Hops uint64
	stop bool
}

// NewEventList returns an empty event list at time 0.
func NewEventList() *EventList { return &EventList{heap: make([]event, 0, 1024)} }

// Now is the current simulated time.
func (e *EventList) Now() Time { return e.now }

// Events is the number of events dispatched so far.
func (e *EventList) Events() uint64 { return e.events }

// Pending is the number of events scheduled and not yet dispatched.
func (e *EventList) Pending() int { return len(e.heap) }

// Schedule asks for src.DoNextEvent at time at (not before now).
func (e *EventList) Schedule(at Time, src Source) {
	if at < e.now {
		panic("sim: event scheduled in the past")
	}
	e.seq++
	e.heap = append(e.heap, event{at: at, seq: e.seq, src: src})
	e.up(len(e.heap) - 1)
}

// Stop makes Run return after the current event.
func (e *EventList) Stop() { e.stop = true }

// Run dispatches events in time order until none is left, Stop is called, or the next event is
// after until. It returns the time reached.
func (e *EventList) Run(until Time) Time {
	e.stop = false
	for len(e.heap) > 0 && !e.stop {
		if e.heap[0].at > until {
			e.now = until
			return e.now
		}
		ev := e.pop()
		e.now = ev.at
		e.events++
		ev.src.DoNextEvent()
	}
	return e.now
}

func less(a, b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// pop removes the earliest event. It moves the hole left at the root down to a leaf along the
// smallest children, then lifts the last element from there (Floyd): the element coming from the
// bottom of the heap almost always belongs near the bottom, so this saves a comparison per level.
func (e *EventList) pop() event {
	h := e.heap
	top := h[0]
	last := len(h) - 1
	ev := h[last]
	h[last] = event{}
	h = h[:last]
	e.heap = h
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
		end := min(first+4, last)
		for c := first + 1; c < end; c++ {
			if less(&h[c], &h[best]) {
				best = c
			}
		}
		h[i] = h[best]
		i = best
	}
	h[i] = ev
	e.up(i)
	return top
}

func (e *EventList) up(i int) {
	h := e.heap
	ev := h[i]
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
