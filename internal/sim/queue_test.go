package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A burst into a FIFO leaves back to back at the link rate, reaches the far end one pipe delay
// later, and what does not fit the buffer is dropped.
func TestQueueSerializesAndDropsTail(t *testing.T) {
	el, pool := NewEventList(), &PacketPool{}
	rec := &recorder{el: el, pool: pool}
	q := NewQueue(el, pool, 10*Gbps, 3, 0, false)
	route := Route{q, NewPipe(el, 2*Microsecond), rec}
	for i := int32(0); i < 6; i++ {
		inject(el, pool, 0, route, i, 1500, 0, 0)
	}
	el.Run(Never)
	// One in service and three waiting: packets 4 and 5 are dropped.
	if len(rec.times) != 4 || q.Stats().Drops != 2 || q.Stats().MaxLen != 3 {
		t.Fatalf("arrived %d dropped %d maxlen %d", len(rec.times), q.Stats().Drops, q.Stats().MaxLen)
	}
	for i, at := range rec.times {
		want := Time(i+1)*1200*Nanosecond + 2*Microsecond
		if at != want || rec.seqs[i] != int32(i) {
			t.Fatalf("packet %d (seq %d) at %v, want %v", i, rec.seqs[i], at, want)
		}
	}
	if el.Hops != 4 {
		t.Fatalf("hops %d", el.Hops)
	}
}

func TestQueueMarksAtK(t *testing.T) {
	el, pool := NewEventList(), &PacketPool{}
	var ce []bool
	sink := sinkFunc(func(p *Packet) { ce = append(ce, p.CE); pool.Put(p) })
	q := NewQueue(el, pool, 10*Gbps, 100, 2, false)
	for i := int32(0); i < 5; i++ {
		inject(el, pool, 0, Route{q, sink}, i, 1500, 0, 0)
	}
	el.Run(Never)
	// Packet 0 goes into service, 1 and 2 find 0 and 1 waiting, 3 and 4 find 2 and 3.
	want := []bool{false, false, false, true, true}
	for i := range want {
		if ce[i] != want[i] {
			t.Fatalf("CE marks %v, want %v", ce, want)
		}
	}
}

type sinkFunc func(p *Packet)

func (f sinkFunc) Receive(p *Packet) { f(p) }

// The mean waiting time of Poisson arrivals of fixed-size packets at a FIFO is the M/D/1 one:
// Wq = ρ·S / (2(1−ρ)) for service time S and utilisation ρ.
func TestQueueMatchesMD1(t *testing.T) {
	for _, rho := range []float64{0.3, 0.6, 0.8} {
		el, pool := NewEventList(), &PacketPool{}
		const size = 1500
		service := (10 * Gbps).Serialization(size)
		var waitSum float64
		var n int
		sink := sinkFunc(func(p *Packet) {
			waitSum += float64(el.Now() - p.Born - service)
			n++
			pool.Put(p)
		})
		q := NewQueue(el, pool, 10*Gbps, 1<<30, 0, false)
		route := Route{q, sink}
		rng := rand.New(rand.NewPCG(1, uint64(rho*100)))
		mean := float64(service) / rho
		const packets = 400000
		sent := 0
		var arrive Source
		arrive = call(func() {
			p := pool.Get()
			p.Size, p.Born = size, el.Now()
			p.SetRoute(route)
			p.SendOn()
			if sent++; sent < packets {
				el.Schedule(el.Now()+Time(rng.ExpFloat64()*mean), arrive)
			}
		})
		el.Schedule(0, arrive)
		el.Run(Never)
		got := waitSum / float64(n)
		want := rho * float64(service) / (2 * (1 - rho))
		if math.Abs(got-want)/want > 0.03 {
			t.Errorf("ρ=%.1f: mean wait %.1f ns, M/D/1 %.1f ns", rho, got/1000, want/1000)
		}
	}
}
