package experiment

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/sim/workload"
)

// Progress counts every flow started and completed, and reaches the simulated time of the last.
func TestFCTProgressCountsFlows(t *testing.T) {
	cdf, err := workload.Load("websearch")
	if err != nil {
		t.Fatal(err)
	}
	c := FCTConfig{Scheme: TCP, Workload: cdf, Load: 0.6, Flows: 150, Seed: 1, Fabric: smallFabric()}
	c.Progress = &Progress{}
	res, err := RunFCT(c)
	if err != nil {
		t.Fatal(err)
	}
	started, done := c.Progress.Flows()
	if started != c.Flows || done != c.Flows-res.Unfinished || done == 0 {
		t.Errorf("progress: %d started, %d completed; want %d and %d", started, done, c.Flows, c.Flows-res.Unfinished)
	}
	if sim := c.Progress.Simulated().Seconds(); sim <= 0 || sim > res.Perf.SimulatedSeconds {
		t.Errorf("progress at %g s simulated, the run ended at %g s", sim, res.Perf.SimulatedSeconds)
	}
	if line := c.Progress.Line(c.Flows); !strings.Contains(line, fmt.Sprintf("%d of %d flows completed (%d started)", done, c.Flows, started)) {
		t.Errorf("line %q", line)
	}
}
