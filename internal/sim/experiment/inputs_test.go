package experiment

import (
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

func inputsConfig(t *testing.T) FCTConfig {
	t.Helper()
	cdf, err := workload.Load("datamining")
	if err != nil {
		t.Fatal(err)
	}
	return FCTConfig{Scheme: TCP, Workload: cdf, Load: 0.5, Flows: 50, Seed: 1, Fabric: smallFabric()}
}

// A fabric on which the smallest flow's ideal FCT falls under what the flows are timed to (the
// nanosecond, with a margin) is refused, naming the inputs that set it; until it was, flows
// there completed "in 0 ns", read as unfinished, and made the means infinite.
func TestValidateRefusesIdealFCTUnderTheResolution(t *testing.T) {
	for _, hostsPerRack := range []int{4, 1} {
		c := inputsConfig(t)
		c.Fabric.HostsPerRack = hostsPerRack
		c.Fabric.EdgeRate, c.Fabric.CoreRate, c.Fabric.LinkDelay, c.Fabric.HostDelay = topology.MaxRate, topology.MaxRate, 0, 0
		err := c.Validate()
		want := []string{"edge-rate", "link-delay", "host-delay", "timed to the nanosecond", "at least 0.1µs"}
		if hostsPerRack == 1 { // the shortest path crosses the spine
			want = append(want, "core-rate")
		}
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%d hosts a rack: error %v, want one naming %q", hostsPerRack, err, w)
			}
		}
	}
	c := inputsConfig(t)
	c.Fabric.LinkDelay, c.Fabric.HostDelay = 0, 0 // 10 Gb/s: 2.4 µs for one packet in a rack
	if err := c.Validate(); err != nil {
		t.Errorf("10 Gb/s without delays: %v", err)
	}
}

// Statistics count the flows that finished by their flag, not by an FCT of 0, and a point's
// unfinished count is the flows without it.
func TestFinishedFlowsAreFlagged(t *testing.T) {
	st := ComputeStats([]FlowRow{{Size: 1460, Done: true, FCTUs: 2, IdealUs: 1}, {Size: 1460, FCTUs: 5, IdealUs: 1}})
	if st.Flows != 1 || st.AllMean != 2 {
		t.Errorf("stats %+v, want the one finished flow, normalised 2", st)
	}
	c := inputsConfig(t)
	c.Workload, _ = workload.Load("websearch")
	c.Flows, c.Horizon = 30, 20*sim.Microsecond
	res, err := RunFCT(c)
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, f := range res.Flows {
		if f.Done {
			done++
		}
	}
	if res.Unfinished == 0 || done+res.Unfinished != c.Flows || res.Stats.Flows != done {
		t.Errorf("%d flows: %d done, %d unfinished, statistics over %d; want some unfinished and the rest counted",
			c.Flows, done, res.Unfinished, res.Stats.Flows)
	}
}

// A CDF whose sizes are padded to whole packets past the edge capacity is refused at a load it
// would push to 1 or more, with the likely cause: sizes in packets read as bytes.
func TestValidateRefusesALoadPaddedPastCapacity(t *testing.T) {
	cdf, err := workload.Parse("packets.csv", strings.NewReader("1,0\n1000,1\n")) // mean 500.5 B, drawn 1460 B
	if err != nil {
		t.Fatal(err)
	}
	c := inputsConfig(t)
	c.Workload = cdf
	err = c.Validate()
	for _, w := range []string{"load", "packets.csv", "2.92 times", "1.46 of the edge capacity", "below 0.343", "in packets"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v, want one saying %q", err, w)
		}
	}
	c.Load = 0.3
	if err := c.Validate(); err != nil {
		t.Errorf("load 0.3, 0.88 padded: %v", err)
	}
}

// A point's flows are bounded by the memory each takes, not only by how long they take to arrive:
// 10⁸ flows arrive within the arrival bound and would take some 40 GB.
func TestValidateBoundsFlows(t *testing.T) {
	c := inputsConfig(t)
	c.Fabric = topology.PaperFabric()
	c.Flows = MaxFlows
	if err := c.Validate(); err != nil {
		t.Fatalf("%d flows: %v", c.Flows, err)
	}
	for _, n := range []int{MaxFlows + 1, 100_000_000} {
		c.Flows = n
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "need 1 to 1000000 flows") {
			t.Errorf("%d flows: error %v, want the bound", n, err)
		}
	}
}
