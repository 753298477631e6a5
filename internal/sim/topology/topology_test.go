package topology

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

func TestRoutesAndECMP(t *testing.T) {
	el := sim.NewEventList()
	c := PaperFabric()
	c.Buffer, c.HostBuffer = 10, 10
	f := Build(el, c, func(rate sim.Rate, limit, host int) sim.Port {
		return sim.NewQueue(el, &sim.PacketPool{}, rate, limit, 0, host >= 0)
	})
	if n := len(f.Ports); n != 144+144+9*4+4*9 {
		t.Fatalf("%d ports", n)
	}
	if r := f.Route(0, 15, 0, nil); len(r) != 3 || len(c.Path(0, 15)) != 2 {
		t.Fatalf("same rack: route of %d sinks", len(r))
	}
	if r := f.Route(0, 16, 3, nil); len(r) != 5 || len(c.Path(0, 16)) != 4 {
		t.Fatalf("across the spine: route of %d sinks", len(r))
	}
	// Per-flow ECMP spreads flows evenly over the spines, and both directions are hashed apart.
	var per [4]int
	same := 0
	for id := int32(0); id < 40000; id++ {
		s := f.ECMP(id, false, 1)
		per[s]++
		if s == f.ECMP(id, true, 1) {
			same++
		}
	}
	for s, n := range per {
		if n < 9500 || n > 10500 {
			t.Fatalf("spine %d carries %d of 40000 flows", s, n)
		}
	}
	if same < 9000 || same > 11000 {
		t.Fatalf("%d of 40000 flows hash both directions to one spine, want about a quarter", same)
	}
}

// Link rates are bounded on both sides: 10 b/s (a --edge-rate 10 meant as 10G) made a point of
// five flows run for minutes, 100 Tb/s serialised an ACK in 3 ps.
func TestValidateBoundsRates(t *testing.T) {
	for _, c := range []struct {
		edge, core sim.Rate
		ok         bool
	}{
		{MinRate, MaxRate, true}, {10 * sim.Gbps, 40 * sim.Gbps, true},
		{10, 40 * sim.Gbps, false}, {10 * sim.Gbps, 1000, false}, {MaxRate + 1, 40 * sim.Gbps, false}, {10 * sim.Gbps, 100_000 * sim.Gbps, false},
	} {
		f := PaperFabric()
		f.EdgeRate, f.CoreRate, f.Buffer, f.HostBuffer = c.edge, c.core, 100, 100
		if err := f.Validate(); (err == nil) != c.ok {
			t.Errorf("edge %d b/s, core %d b/s: error %v, want ok %v", c.edge, c.core, err, c.ok)
		}
	}
}
