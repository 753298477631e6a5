package experiment

import (
	"math"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

// TestRealisedLoadByHand: two one-packet flows on one host of 10 Gb/s, the second arriving at
// 2.4 µs, put 2 × 1500 wire bytes (24,000 bits) in 2.4 µs of 10 Gb/s: load 1.
func TestRealisedLoadByHand(t *testing.T) {
	flows := []FlowRow{{Size: 1460, StartUs: 1}, {Size: 1460, StartUs: 2.4}}
	if got := RealisedLoad(flows, 1, 10*sim.Gbps); math.Abs(got-1) > 1e-9 {
		t.Errorf("realised load %v, want 1", got)
	}
	if got := RealisedLoad(nil, 1, 10*sim.Gbps); got != 0 {
		t.Errorf("realised load of no flows %v, want 0", got)
	}
}

// TestRealisedLoadMeetsTheDrawnOne: over many flows the load the generator's arrivals offer is
// the load they were drawn for (the two compute wire bytes alike); over few heavy-tailed ones it
// need not be, which is what the figure is for.
func TestRealisedLoadMeetsTheDrawnOne(t *testing.T) {
	for _, name := range workload.Names {
		cdf, err := workload.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		g := workload.NewGenerator(cdf, 144, 10*sim.Gbps, 0.5, 1)
		flows := make([]FlowRow, 200000)
		for i := range flows {
			f := g.Next()
			flows[i] = FlowRow{Size: f.Size, StartUs: f.Start.Micros()}
		}
		if got := RealisedLoad(flows, 144, 10*sim.Gbps); math.Abs(got-0.5) > 0.02 {
			t.Errorf("%s: 200,000 flows drawn for load 0.5 offer %.4f", name, got)
		}
	}
}
