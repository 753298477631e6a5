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

// The queue counts the packets waiting only when the count can matter (queue.go, Receive); a
// plain reference FIFO that counts at every arrival must agree with it on everything the count
// decides: each packet's fate, CE mark and arrival time, and the drops, marks and longest queue.
// Random bursts of data-sized and ACK-sized packets keep the queue's length going up and down
// across the buffer and the marking threshold; with a buffer that never fills, the longest queue
// is one the run reached once, not the buffer.
func TestQueueCountsExactlyWhereItMatters(t *testing.T) {
	for _, c := range []struct{ limit, ecnK int }{{12, 0}, {12, 5}, {1 << 20, 0}} {
		limit, ecnK := c.limit, c.ecnK
		el, pool := NewEventList(), &PacketPool{}
		type seen struct {
			at Time
			ce bool
		}
		got := map[int32]seen{}
		sink := sinkFunc(func(p *Packet) { got[p.Seq] = seen{el.Now(), p.CE}; pool.Put(p) })
		q := NewQueue(el, pool, 10*Gbps, limit, ecnK, false)
		ser := newSerializer(10 * Gbps)
		rng := rand.New(rand.NewPCG(7, uint64(limit+ecnK)))
		var (
			free             Time
			starts           []Time // the reference: starts of the packets waiting, pruned every time
			want             = map[int32]seen{}
			drops, marks, mx int
			at               Time
		)
		for seq := int32(0); seq < 20000; seq++ {
			at += Time(rng.ExpFloat64() * float64(700*Nanosecond))
			if rng.IntN(8) == 0 {
				at += 20 * Microsecond // an idle spell now and then
			}
			size := int32(1500)
			if rng.IntN(3) == 0 {
				size = 64
			}
			inject(el, pool, at, Route{q, sink}, seq, size, 0, 0)
			start, ce := at, false
			if free > at {
				for len(starts) > 0 && starts[0] <= at {
					starts = starts[1:]
				}
				n := len(starts)
				if n >= limit {
					drops++
					continue
				}
				if ecnK > 0 && n >= ecnK {
					ce = true
					marks++
				}
				mx = max(mx, n+1)
				start = free
				starts = append(starts, start)
			}
			free = start + ser.time(int(size))
			want[seq] = seen{free, ce} // the queue has no link behind it: it arrives as it leaves
		}
		el.Run(Never)
		s := q.Stats()
		t.Logf("limit %d, ecnK %d: %d drops, %d marks, longest %d", limit, ecnK, s.Drops, s.Marks, s.MaxLen)
		if int(s.Drops) != drops || int(s.Marks) != marks || s.MaxLen != mx {
			t.Fatalf("limit %d, ecnK %d: drops %d marks %d longest %d, the reference %d, %d and %d", limit, ecnK, s.Drops, s.Marks, s.MaxLen, drops, marks, mx)
		}
		filled := drops > 0 && mx == limit // the buffer overflowed
		if limit == 1<<20 {
			filled = drops == 0 && mx >= 16 // a long queue, never the buffer
		}
		if !filled || (ecnK > 0 && marks == 0) {
			t.Fatalf("limit %d, ecnK %d: the load did not fill the queue as meant (drops %d, marks %d, longest %d)", limit, ecnK, drops, marks, mx)
		}
		if len(got) != len(want) {
			t.Fatalf("limit %d, ecnK %d: %d packets arrived, the reference %d", limit, ecnK, len(got), len(want))
		}
		for seq, w := range want {
			if got[seq] != w {
				t.Fatalf("limit %d, ecnK %d: packet %d arrived %+v, the reference %+v", limit, ecnK, seq, got[seq], w)
			}
		}
	}
}

// pushIf keeps a time only when asked, and keeps the kept ones in order across the ring's growth
// (an idle link's arrival writes its start and does not keep it).
func TestTimeRingPushIfKeepsOnlyWhatItIsAskedTo(t *testing.T) {
	var r timeRing
	var want []Time
	for i := range 100 {
		keep := i%3 != 0
		r.pushIf(Time(i), b2i(keep))
		if keep {
			want = append(want, Time(i))
		}
	}
	if r.len() != len(want) {
		t.Fatalf("ring holds %d times, want %d", r.len(), len(want))
	}
	r.dropUntil(want[9])
	if got := r.after(0); got != len(want)-10 {
		t.Fatalf("after dropping the first 10, %d left, want %d", got, len(want)-10)
	}
	for i, w := range want[10:] {
		if got := r.buf[(r.head+i)&(len(r.buf)-1)]; got != w {
			t.Fatalf("time %d is %d, want %d", i, got, w)
		}
	}
}
