package experiment

import (
	"math"
	"testing"

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
	for _, p := range r.Points {
		t.Logf("aligned %v straddled %v f7 %.1f region %s bound %.1fµs max %.1fµs p99 %.1fµs lost %d",
			r.Aligned, r.Straddle, p.F7, p.Region, p.BoundUs, p.MaxUs, p.P99Us, p.Lost)
		if p.Probes < c.Probes {
			t.Fatalf("f7 %.1f: %d probes", p.F7, p.Probes)
		}
		switch p.Region {
		case "A", "B":
			if !p.Guaranteed || p.OverBound != 0 || p.MaxUs > p.BoundUs {
				t.Errorf("f7 %.1f: %d probes over the %.1fµs bound (max %.1fµs)", p.F7, p.OverBound, p.BoundUs, p.MaxUs)
			}
			budgets := 1
			if r.Straddle {
				budgets = 2
			}
			probes := int(math.Floor(p.F7*float64(c.Packet))) / int(c.ProbeSize)
			drain := float64((c.Hosts-1)*budgets*probes*int(c.ProbeSize)*8) / 10e3 // µs at 10 Gb/s
			if r.Aligned && p.MaxUs < 0.9*drain {
				t.Errorf("f7 %.1f aligned: max %.1fµs, below the %.1fµs the aligned burst needs: the worst case was not reached", p.F7, p.MaxUs, drain)
			}
			fab := topology.PaperFabric()
			fab.Racks, fab.HostsPerRack = c.Hosts/c.HostsPerRack, c.HostsPerRack
			shaped := c.Model(p.F7, fab)
			shaped.Shaped = true
			if one := float64(shaped.FanIn(7).Delay.Nanoseconds()) / 1e3; r.Straddle && r.Aligned && p.MaxUs <= one {
				t.Errorf("f7 %.1f straddled: max %.1fµs within the one-budget bound %.1fµs: two budgets did not meet", p.F7, p.MaxUs, one)
			}
		case "C":
			if p.Guaranteed || p.Lost == 0 {
				t.Errorf("f7 %.1f: region C with no loss (max %.1fµs)", p.F7, p.MaxUs)
			}
		}
	}
}
