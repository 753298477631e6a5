package experiment

import (
	"math"
	"testing"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// At 32 hosts, the fan-in stays within the model's bound wherever the model promises one
// (regions A and B: not one probe over), and beyond m the level is oversubscribed: the queue
// fills the buffer and probes are lost.
//
// With aligned epochs every budget arrives in one burst, and straddling an epoch's end every host
// sends two budgets back to back, the worst case the bound describes: the worst latency must reach
// the time the destination needs to drain that burst, and in the straddled case pass what one
// budget per host would allow (the shape-mode bound), which is why police mode's bound counts two.
func TestFanInWithinBoundUnlessOversubscribed(t *testing.T) {
	for _, sweep := range []struct{ aligned, straddle bool }{{false, false}, {true, false}, {true, true}} {
		c := DefaultFanIn(32, true)
		c.Probes, c.Factors, c.Aligned, c.Straddle = 30_000, []float64{0.5, 1, 2, 3}, sweep.aligned, sweep.straddle
		r, err := RunFanIn(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkFanIn(t, c, r)
	}
}

func checkFanIn(t *testing.T, c FanInConfig, r *FanInResult) {
	// Every factor has its point, so that each region's check below runs on the point it names.
	if len(r.Points) != len(c.Factors) {
		t.Fatalf("%d points for the %d factors %v", len(r.Points), len(c.Factors), c.Factors)
	}
	regions := map[string]bool{}
	for i, p := range r.Points {
		if p.F7 != c.Factors[i] || p.Region != Region(p.F7, c.Mesochronous) {
			t.Fatalf("point %d: f7 %v in region %q, want f7 %v in region %q", i, p.F7, p.Region, c.Factors[i], Region(c.Factors[i], c.Mesochronous))
		}
		regions[p.Region] = true
	}
	if !regions["A"] || !regions["B"] || !regions["C"] {
		t.Fatalf("factors %v at m = %d reach regions %v: the test needs A, B and C", c.Factors, c.Mesochronous, regions)
	}
	for _, p := range r.Points {
		if p.Probes < c.Probes || p.MaxUs == nil || p.P99Us == nil {
			t.Fatalf("f7 %.1f: %d probes, max %v, p99 %v", p.F7, p.Probes, p.MaxUs, p.P99Us)
		}
		worst := *p.MaxUs
		t.Logf("aligned %v straddled %v f7 %.1f region %s bound %.1fµs max %.1fµs p99 %.1fµs lost %d",
			r.Aligned, r.Straddle, p.F7, p.Region, p.FormulaUs, worst, *p.P99Us, p.Lost)
		if (p.BoundUs != nil) != p.Guaranteed || (p.OverBound != nil) != p.Guaranteed {
			t.Errorf("f7 %.1f: bound %v, over it %v, with guaranteed %v: both are written only where the bound holds", p.F7, p.BoundUs, p.OverBound, p.Guaranteed)
		}
		switch p.Region {
		case "A", "B":
			if !p.Guaranteed || p.OverBound == nil || *p.OverBound != 0 || worst > p.FormulaUs {
				t.Errorf("f7 %.1f: %v probes over the %.1fµs bound (max %.1fµs)", p.F7, p.OverBound, p.FormulaUs, worst)
			}
			budgets := 1
			if r.Straddle {
				budgets = 2
			}
			probes := int(math.Floor(p.F7*float64(c.Packet))) / int(c.ProbeSize)
			drain := float64((c.Hosts-1)*budgets*probes*int(c.ProbeSize)*8) / 10e3 // µs at 10 Gb/s
			if r.Aligned && worst < 0.9*drain {
				t.Errorf("f7 %.1f aligned: max %.1fµs, below the %.1fµs the aligned burst needs: the worst case was not reached", p.F7, worst, drain)
			}
			fab := topology.PaperFabric()
			fab.Racks, fab.HostsPerRack = c.Hosts/c.HostsPerRack, c.HostsPerRack
			// The one-budget figure n·f·P: the shaped model's b = 1, without its floor of a whole
			// frame a host, which a token bucket has and these 256-byte probes do not need.
			shaped := c.Model(p.F7, fab)
			shaped.Shaped, shaped.MaxFrame = true, model.MinWireFrame
			if one := float64(shaped.FanIn(7).Delay.Nanoseconds()) / 1e3; r.Straddle && r.Aligned && worst <= one {
				t.Errorf("f7 %.1f straddled: max %.1fµs within the one-budget bound %.1fµs: two budgets did not meet", p.F7, worst, one)
			}
		case "C":
			if p.Guaranteed || p.Lost == 0 {
				t.Errorf("f7 %.1f: region C with no loss (max %.1fµs)", p.F7, worst)
			}
		}
	}
}

// A point's p50_us and its series' p50 are the same rank of the same probes (nearest rank), so
// results.json does not give two medians for one point.
func TestFanInPointAndSeriesShareTheirP50(t *testing.T) {
	c := DefaultFanIn(32, true)
	c.Probes, c.Factors = 2_000, []float64{1, 3}
	r, err := RunFanIn(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != len(c.Factors) {
		t.Fatalf("%d points for %d factors", len(r.Points), len(c.Factors))
	}
	for _, p := range r.Points {
		if p.P50Us == nil {
			t.Fatalf("f7 %.1f: no p50_us", p.F7)
		}
		if results.Round3(*p.P50Us) != p.Latency.P50US {
			t.Errorf("f7 %.1f: p50_us %v, series p50 %v", p.F7, *p.P50Us, p.Latency.P50US)
		}
	}
}
