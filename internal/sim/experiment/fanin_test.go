package experiment

import (
	"math"
	"testing"
)

// At 32 hosts, the fan-in stays within the model's bound wherever the model promises one
// (regions A and B: not one probe over), and beyond m the level is oversubscribed: the queue
// fills the buffer and probes are lost.
//
// With aligned epochs every budget arrives in one burst, the worst case the bound describes: the
// worst latency must reach the time the destination needs to drain that burst.
func TestFanInWithinBoundUnlessOversubscribed(t *testing.T) {
	for _, aligned := range []bool{false, true} {
		c := DefaultFanIn(32, true)
		c.Probes, c.Factors, c.Aligned = 30_000, []float64{0.5, 1, 2, 3}, aligned
		r, err := RunFanIn(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkFanIn(t, c, r)
	}
}

func checkFanIn(t *testing.T, c FanInConfig, r *FanInResult) {
	for _, p := range r.Points {
		t.Logf("aligned %v f7 %.1f region %s bound %.1fµs max %.1fµs p99 %.1fµs lost %d", r.Aligned, p.F7, p.Region, p.BoundUs, p.MaxUs, p.P99Us, p.Lost)
		if p.Probes < c.Probes {
			t.Fatalf("f7 %.1f: %d probes", p.F7, p.Probes)
		}
		switch p.Region {
		case "A", "B":
			if !p.Guaranteed || p.OverBound != 0 || p.MaxUs > p.BoundUs {
				t.Errorf("f7 %.1f: %d probes over the %.1fµs bound (max %.1fµs)", p.F7, p.OverBound, p.BoundUs, p.MaxUs)
			}
			probes := int(math.Floor(p.F7*float64(c.Packet))) / int(c.ProbeSize)
			drain := float64((c.Hosts-1)*probes*int(c.ProbeSize)*8) / 10e3 // µs at 10 Gb/s
			if r.Aligned && p.MaxUs < 0.9*drain {
				t.Errorf("f7 %.1f aligned: max %.1fµs, below the %.1fµs the aligned burst needs: the worst case was not reached", p.F7, p.MaxUs, drain)
			}
		case "C":
			if p.Guaranteed || p.Lost == 0 {
				t.Errorf("f7 %.1f: region C with no loss (max %.1fµs)", p.F7, p.MaxUs)
			}
		}
	}
}
