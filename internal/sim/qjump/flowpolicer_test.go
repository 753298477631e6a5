package qjump

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

// origin counts the packets a policer or a host port reports gone from the host.
type origin struct{ left int }

func (o *origin) LeftHost(*sim.Packet, sim.Time) { o.left++ }

// The authors' ns-2 limiter: a flow's budget per interval counted from its own start, refilled
// whole at each interval, and a packet that does not fit dropped (and reported gone from the
// host), never held.
func TestFlowPolicerDropsWhatTheIntervalCannotHold(t *testing.T) {
	el := sim.NewEventList()
	pool := &sim.PacketPool{}
	s := &sink{el: el}
	o := &origin{}
	const interval = sim.Millisecond
	start := 300 * sim.Microsecond // the flow's intervals: [0.3, 1.3) ms, [1.3, 2.3) ms, ...
	var f *FlowPolicer
	send := func(at sim.Time, size int32) {
		el.Schedule(at, call(func() {
			p := pool.Get()
			p.Size, p.Origin = size, o
			p.SetRoute(sim.Route{f, s})
			p.SendOn()
		}))
	}
	el.Schedule(start, call(func() { f = NewFlowPolicer(el, pool, 2*1500*8, interval) }))
	send(start, 1500)                            // fits
	send(start+10*sim.Microsecond, 1500)         // fits: the budget is exactly used
	send(start+20*sim.Microsecond, 40)           // dropped: not one bit left
	send(start+interval-1, 1500)                 // dropped: still the first interval
	send(start+interval, 1500)                   // the second interval, a fresh budget: fits
	send(start+interval+5*sim.Microsecond, 1500) // fits
	send(start+interval+6*sim.Microsecond, 1500) // dropped
	send(start+5*interval, 1500)                 // after idle intervals: a whole budget, no more
	el.Run(sim.Never)
	want := []sim.Time{start, start + 10*sim.Microsecond, start + interval, start + interval + 5*sim.Microsecond, start + 5*interval}
	if len(s.times) != len(want) {
		t.Fatalf("passed at %v, want %v", s.times, want)
	}
	for i := range want {
		if s.times[i] != want[i] {
			t.Fatalf("passed at %v, want %v", s.times, want)
		}
	}
	if f.Dropped() != 3 || o.left != 3 {
		t.Errorf("dropped %d, reported gone %d; want 3 and 3", f.Dropped(), o.left)
	}
}
