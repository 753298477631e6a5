package sim

import (
	"fmt"
	"slices"
	"testing"
)

// The scheduling ports (strict priority, pFabric) against a reference that knows nothing of
// events: given every arrival up front, it walks time and, at each moment the link frees, chooses
// among the packets that arrived before that moment (departures at a time come before arrivals at
// that time), as a port must. The arrivals are random, on a coarse grid so that arrivals at one
// picosecond and arrivals at the very moment the link frees are common, into small buffers that
// overflow. Every packet's arrival at the far end, and every drop, must agree.
func TestSchedulingPortsMatchTheReference(t *testing.T) {
	for _, kind := range []string{"prio", "pfabric"} {
		for seed := uint64(1); seed <= 20; seed++ {
			arrivals := randomArrivals(seed, 400)
			want, wantDrops := referencePort(kind, arrivals, 6, 10*Gbps, 200*Nanosecond)
			got, gotDrops := runPort(kind, arrivals, 6, 10*Gbps, 200*Nanosecond)
			if i := firstDiff(got, want); i >= 0 || gotDrops != wantDrops {
				t.Fatalf("%s, seed %d: delivery %d is %s, the reference's %s; drops %d, the reference's %d",
					kind, seed, i, delivery(got, i), delivery(want, i), gotDrops, wantDrops)
			}
			if len(want) < 100 || wantDrops == 0 {
				t.Fatalf("%s, seed %d: %d deliveries and %d drops: the case tests too little", kind, seed, len(want), wantDrops)
			}
		}
	}
}

type arrival struct {
	at    Time
	seq   int32
	size  int32
	level uint8 // prio: the level
	prio  int64 // pfabric: the priority
	flow  int32
}

type delivered struct {
	seq int32
	at  Time
}

func delivery(d []delivered, i int) string {
	if i < 0 || i >= len(d) {
		return "none"
	}
	return fmt.Sprintf("seq %d at %v", d[i].seq, d[i].at)
}

// randomArrivals are n packets at times on a 100 ns grid (a 125-byte unit takes 100 ns at 10
// Gb/s, so links free on the grid too), in bursts that fill a small buffer.
func randomArrivals(seed uint64, n int) []arrival {
	x := seed
	rnd := func(k uint64) uint64 { x = x*6364136223846793005 + 1442695040888963407; return (x >> 33) % k }
	var out []arrival
	at := Time(0)
	for i := range n {
		at += Time(rnd(6)) * 100 * Nanosecond
		out = append(out, arrival{at: at, seq: int32(i), size: int32(125 * (1 + rnd(4))),
			level: uint8(rnd(Levels)), prio: int64(rnd(5)), flow: int32(rnd(4))})
	}
	return out
}

// runPort feeds the arrivals to the port under test, behind which a link of delay leads to a
// recorder.
func runPort(kind string, arrivals []arrival, limit int, rate Rate, delay Time) ([]delivered, uint64) {
	el, pool := NewEventList(), &PacketPool{}
	var got []delivered
	end := sinkFunc(func(p *Packet) { got = append(got, delivered{p.Seq, el.Now()}); pool.Put(p) })
	var port interface {
		Port
		Stats() QueueStats
	}
	if kind == "prio" {
		port = NewPrioQueue(el, pool, rate, limit, false)
	} else {
		port = NewPFabricQueue(el, pool, rate, limit, false)
	}
	port.SetLink(delay)
	for _, a := range arrivals {
		el.Schedule(a.at, call(func() {
			p := pool.Get()
			p.Seq, p.Size, p.Level, p.Prio, p.Flow = a.seq, a.size, a.level, a.prio, a.flow
			p.SetRoute(Route{port, end})
			p.SendOn()
		}))
	}
	el.Run(Never)
	return got, port.Stats().Drops
}

// referencePort is what a port of the kind delivers, worked out without events.
func referencePort(kind string, arrivals []arrival, limit int, rate Rate, delay Time) ([]delivered, uint64) {
	var out []delivered
	var waiting []arrival // arrival order
	var drops uint64
	free := Time(0)
	start := func(a arrival, at Time) {
		free = at + rate.Serialization(int(a.size))
		out = append(out, delivered{a.seq, free + delay})
	}
	// departUntil starts, at each moment the link frees up to t, the packet the port chooses.
	departUntil := func(t Time) {
		for len(waiting) > 0 && free <= t {
			i := referenceChoice(kind, waiting)
			a := waiting[i]
			waiting = slices.Delete(waiting, i, i+1)
			start(a, free)
		}
	}
	for _, a := range arrivals {
		departUntil(a.at)
		if free <= a.at {
			start(a, a.at)
			continue
		}
		if len(waiting) >= limit {
			v := referenceVictim(kind, waiting, a)
			drops++
			if v < 0 {
				continue
			}
			waiting = slices.Delete(waiting, v, v+1)
		}
		waiting = append(waiting, a)
	}
	departUntil(Never)
	slices.SortFunc(out, func(a, b delivered) int { return int(a.at - b.at) })
	return out, drops
}

// referenceChoice is the index of the waiting packet the port sends next: strict priority, FIFO
// within a level; pFabric, the earliest packet of the flow of the best (earliest on ties) packet.
func referenceChoice(kind string, waiting []arrival) int {
	best := 0
	for i, a := range waiting {
		if kind == "prio" && a.level > waiting[best].level || kind == "pfabric" && a.prio < waiting[best].prio {
			best = i
		}
	}
	if kind == "pfabric" {
		for i, a := range waiting[:best] {
			if a.flow == waiting[best].flow {
				return i
			}
		}
	}
	return best
}

// referenceVictim is the waiting packet a full buffer drops to make room for a, or -1 to drop a:
// strict priority pushes out the newest packet of the lowest level below a's; pFabric drops the
// worst priority, the latest among equals, the arrival included.
func referenceVictim(kind string, waiting []arrival, a arrival) int {
	if kind == "prio" {
		for low := uint8(0); low < a.level; low++ {
			for i := len(waiting) - 1; i >= 0; i-- {
				if waiting[i].level == low {
					return i
				}
			}
		}
		return -1
	}
	worst := 0
	for i, w := range waiting {
		if w.prio >= waiting[worst].prio {
			worst = i
		}
	}
	if waiting[worst].prio <= a.prio {
		return -1
	}
	return worst
}
