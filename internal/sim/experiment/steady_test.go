package experiment

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

func runPoint(t *testing.T, c FCTConfig) *FCTResult {
	t.Helper()
	r, err := RunFCT(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A steady point counts the same flows as a draining one and keeps others arriving until the
// last of them has finished: what finished before the last arrival is the same in both, what
// was still running after it finishes later, in a network that does not empty.
func TestSteadyPointKeepsTheLoadOn(t *testing.T) {
	cdf, err := workload.Load("websearch")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Scheme{TCP, PFabric, QJump} {
		c := FCTConfig{Scheme: s, Workload: cdf, Load: 0.7, Flows: 150, Seed: 2, Fabric: smallFabric()}
		drain := runPoint(t, c)
		c.Steady = true
		c.Progress = &Progress{}
		steady := runPoint(t, c)
		if drain.Background != 0 || steady.Background == 0 {
			t.Fatalf("%s: %d background flows draining and %d steady; want none and some", s, drain.Background, steady.Background)
		}
		if started, done := c.Progress.Flows(); started != c.Flows || done != c.Flows || steady.Unfinished != 0 {
			t.Errorf("%s: progress counted %d started and %d done, %d unfinished; want %d, %d and 0", s, started, done,
				steady.Unfinished, c.Flows, c.Flows)
		}
		if len(steady.Flows) != c.Flows {
			t.Fatalf("%s: %d flows reported, want the %d counted", s, len(steady.Flows), c.Flows)
		}
		last := drain.Flows[len(drain.Flows)-1].StartUs
		later, slower := 0, 0
		for i, d := range drain.Flows {
			g := steady.Flows[i]
			if g.ID != d.ID || g.Size != d.Size || g.StartUs != d.StartUs || g.Src != d.Src || g.Dst != d.Dst {
				t.Fatalf("%s: flow %d is %+v steady and %+v draining", s, i, g, d)
			}
			if d.StartUs+d.FCTUs < last {
				if g.FCTUs != d.FCTUs {
					t.Errorf("%s: flow %d finished before the last arrival, in %v µs draining and %v steady", s, i, d.FCTUs, g.FCTUs)
				}
				continue
			}
			later++
			if g.FCTUs > d.FCTUs {
				slower++
			}
		}
		if later == 0 || 2*slower < later {
			t.Errorf("%s: %d of the %d flows running at the last arrival were slower steady; want most", s, slower, later)
		}
	}
}

// A steady point stops at the horizon like any other: the background does not run on for ever
// behind a flow that cannot finish.
func TestSteadyPointStopsAtTheHorizon(t *testing.T) {
	cdf, err := workload.Load("datamining")
	if err != nil {
		t.Fatal(err)
	}
	c := FCTConfig{Scheme: TCP, Workload: cdf, Load: 0.5, Flows: 60, Seed: 1, Fabric: smallFabric(), Steady: true,
		Horizon: sim.Millisecond}
	r := runPoint(t, c)
	if r.Unfinished == 0 {
		t.Fatal("every flow finished within 1 ms of the last arrival; the test needs one that does not")
	}
	last := r.Flows[len(r.Flows)-1].StartUs
	if end := r.Perf.SimulatedSeconds * 1e6; end > last+1000+1e-3 {
		t.Errorf("the point ran to %v µs, past the horizon at %v µs", end, last+1000)
	}
}
