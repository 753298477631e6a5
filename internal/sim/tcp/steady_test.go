package tcp

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

type call func()

func (c call) DoNextEvent() { c() }

// dumbbell runs n long flows through one 10 Gb/s bottleneck of buffer packets (ECN at k if
// k > 0) with a 20 µs base RTT, and returns the mean and maximum queue sampled every µs over
// the last 80% of 50 ms, and the bottleneck's utilisation over the same time.
func dumbbell(t *testing.T, n, buffer, k int, cc func() Control) (mean, maxLen float64, util float64) {
	el, pool := sim.NewEventList(), &sim.PacketPool{}
	q := sim.NewQueue(el, pool, 10*sim.Gbps, buffer, k, false)
	fwd, back := sim.NewPipe(el, 5*sim.Microsecond), sim.NewPipe(el, 5*sim.Microsecond)
	var delivered int64
	cfg := Config{InitCwnd: 12, MinRTO: 200 * sim.Microsecond, MaxRTO: sim.Second, FastRetransmit: true}
	for i := 0; i < n; i++ {
		f := &Flow{ID: int32(i), Size: 1 << 40 / 1024, Packets: PacketsFor(1 << 40 / 1024)}
		host := sim.NewPipe(el, 5*sim.Microsecond)
		rcv := NewReceiver(el, pool, f, nil, func(*Flow) {})
		counted := sinkFunc(func(p *sim.Packet) {
			if el.Now() > 10*sim.Millisecond {
				delivered += int64(p.Size)
			}
			rcv.Receive(p)
		})
		snd := NewSender(el, pool, &cfg, cc(), f, sim.Route{host, q, fwd, counted})
		rcv.SetRoute(sim.Route{back, sim.NewPipe(el, 5*sim.Microsecond), snd})
		snd.Start()
	}
	var sum, samples float64
	var sample sim.Source
	sample = call(func() {
		if el.Now() > 10*sim.Millisecond {
			l := float64(q.Len())
			sum += l
			samples++
			maxLen = max(maxLen, l)
		}
		el.Schedule(el.Now()+sim.Microsecond, sample)
	})
	el.Schedule(0, sample)
	el.Run(50 * sim.Millisecond)
	util = float64(delivered) * 8 / (40e-3 * 10e9)
	return sum / samples, maxLen, util
}

type sinkFunc func(p *sim.Packet)

func (f sinkFunc) Receive(p *sim.Packet) { f(p) }

// TCP fills a drop-tail bottleneck: the link stays busy and the queue stands high, between the
// half buffer a loss leaves behind and the full buffer.
func TestTCPStandingQueue(t *testing.T) {
	mean, maxLen, util := dumbbell(t, 4, 150, 0, func() Control { return Reno{} })
	t.Logf("tcp: mean queue %.1f, max %.0f packets, utilisation %.3f", mean, maxLen, util)
	if util < 0.95 || maxLen < 140 || mean < 50 || mean > 150 {
		t.Fatalf("mean queue %.1f max %.0f utilisation %.3f: want a standing queue of 50..150 packets at full rate", mean, maxLen, util)
	}
}

// DCTCP holds the same bottleneck's queue around K = 65 packets at full utilisation.
func TestDCTCPQueueAroundK(t *testing.T) {
	const k = 65
	mean, maxLen, util := dumbbell(t, 4, 150, k, func() Control { return NewDCTCP(1.0 / 16) })
	t.Logf("dctcp: mean queue %.1f, max %.0f packets, utilisation %.3f", mean, maxLen, util)
	if util < 0.95 || mean < 0.5*k || mean > 1.3*k || maxLen >= 150 {
		t.Fatalf("mean queue %.1f max %.0f utilisation %.3f: want around K=%d without overflow", mean, maxLen, util, k)
	}
}
