package qjump

import (
	"testing"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
)

// testModel: n=1, R=1.2 Mb/s, P=1500 B, m=2 gives E = 20 ms; level 4 has no factor and is
// carried by level 3, level 0 is unlimited.
func testModel() model.Config {
	return model.Config{Hosts: 1, Rate: 1.2e6, Packet: 1500, Mesochronous: 2, Factors: model.Factors{
		7: model.Limited(1), 6: model.Limited(2), 5: model.Limited(3.5), 3: model.Limited(5),
		2: model.Limited(0.7), 1: model.Limited(10), 0: model.Unlimited(),
	}}
}

func TestLimiterChargesBudgetPerEpochOnTheGrid(t *testing.T) {
	l := NewLimiter(testModel())
	if l.EpochNs() != 20_000_000 {
		t.Fatalf("epoch %d ns", l.EpochNs())
	}
	const e = 20_000_000
	steps := []struct {
		level  int
		length int64
		now    int64
		want   bool
	}{
		{7, 1000, 5 * e, true},
		{7, 500, 5*e + 1, true}, // exactly the 1500-byte budget
		{7, 1, 6*e - 1, false},  // still the same epoch
		{7, 1500, 6 * e, true},  // a new epoch on the grid, not 20 ms after the first packet
		{2, 1051, 6 * e, false}, // budget floor(0.7·1500) = 1050
		{2, 1050, 6 * e, true},
		{0, 1 << 30, 6 * e, true}, // unlimited
	}
	for i, s := range steps {
		if got := l.Charge(l.Carrier(s.level), s.length, s.now); got != s.want {
			t.Fatalf("step %d: charge level %d %d B at %d: %v, want %v", i, s.level, s.length, s.now, got, s.want)
		}
	}
	if l.Carrier(4) != 3 {
		t.Fatalf("level 4 carried by %d, want 3", l.Carrier(4))
	}
}

type sink struct {
	el    *sim.EventList
	times []sim.Time
	lvls  []uint8
}

func (s *sink) Receive(p *sim.Packet) {
	s.times = append(s.times, s.el.Now())
	s.lvls = append(s.lvls, p.Level)
}

type call func()

func (c call) DoNextEvent() { c() }

// The host port sends what the budget allows at once, holds the rest until the next epoch of
// its own clock, and serves higher levels first.
func TestHostPortHoldsUntilNextEpoch(t *testing.T) {
	el := sim.NewEventList()
	l := NewLimiter(testModel())
	const offsetNs = 7_000_000 // the host's clock is 7 ms ahead: its epochs begin at 13 ms, 33 ms...
	hp := NewHostPort(el, &sim.PacketPool{}, 10*sim.Gbps, 150, l, offsetNs)
	s := &sink{el: el}
	el.Schedule(0, call(func() {
		for _, lv := range []uint8{0, 7, 7, 7, 0} {
			p := &sim.Packet{Size: 1000, Level: lv}
			p.SetRoute(sim.Route{s})
			hp.Receive(p)
		}
	}))
	el.Run(sim.Never)
	tx := (10 * sim.Gbps).Serialization(1000)
	// Level 0 starts first (the link was idle), then one level-7 packet fits its 1500-byte budget
	// and goes ahead of the second level-0 packet, which goes once level 7 has no budget left; the
	// next two level-7 packets wait for the epoch at 13 ms, when one fits again, then the last at
	// 33 ms. (Served lowest level first, the departures' times would be the same: their levels
	// tell.)
	want := []sim.Time{tx, 2 * tx, 3 * tx, 13*sim.Millisecond + tx, 33*sim.Millisecond + tx}
	wantLevels := []uint8{0, 7, 0, 7, 7}
	if len(s.times) != len(want) {
		t.Fatalf("departures %v, want %v", s.times, want)
	}
	for i := range want {
		if s.times[i] != want[i] || s.lvls[i] != wantLevels[i] {
			t.Fatalf("departures %v at levels %v, want %v at levels %v", s.times, s.lvls, want, wantLevels)
		}
	}
	if hp.Held() == 0 {
		t.Fatal("no hold counted")
	}
}

// A level holds at most its limit and drops what arrives beyond, telling the sender; the other
// levels keep their own room. Without the limit a level that its senders outrun would grow
// without bound, and TCP with it (each level's leaf qdisc in the dataplane holds txqueuelen).
func TestHostPortDropsBeyondALevelsLimit(t *testing.T) {
	el := sim.NewEventList()
	pool := &sim.PacketPool{}
	hp := NewHostPort(el, pool, 10*sim.Gbps, 2, NewLimiter(testModel()), 0)
	s := &sink{el: el}
	o := &origin{}
	el.Schedule(0, call(func() {
		// The first level-0 packet starts at once; two wait; the fourth finds the level full.
		// Level 7 still has its room.
		for _, lv := range []uint8{0, 0, 0, 0, 7} {
			p := pool.Get()
			p.Size, p.Level, p.Origin = 1000, lv, o
			p.SetRoute(sim.Route{s})
			hp.Receive(p)
		}
	}))
	el.Run(sim.Never)
	if got := hp.Stats().Drops; got != 1 {
		t.Errorf("drops %d, want 1 (the fourth level-0 packet)", got)
	}
	if len(s.times) != 4 || o.left != 5 {
		t.Errorf("%d packets delivered and %d departures told, want 4 and 5 (the drop is told too)",
			len(s.times), o.left)
	}
	if hp.Stats().MaxLen != 2 {
		t.Errorf("longest level %d, want 2", hp.Stats().MaxLen)
	}
}
