package workload

import (
	"math"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

// The embedded CDFs have the mean sizes their headers state.
func TestEmbeddedMeans(t *testing.T) {
	for name, want := range map[string]float64{"websearch": 1_661_480, "datamining": 7_470_820} {
		c, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.Mean()-want)/want > 0.01 {
			t.Errorf("%s: mean %.0f, want about %.0f", name, c.Mean(), want)
		}
	}
}

func TestParseRejectsBadRows(t *testing.T) {
	for _, in := range []string{"", "size_bytes,cdf\n100,0.5\n", "100,0.5\n50,1\n", "100,x\n", "100,0.2\n200,0.1\n300,1\n", "-5,1\n"} {
		if _, err := Parse("t", strings.NewReader(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// Poisson arrivals offer the asked load: the wire bytes of the flows over the time they span,
// divided by the hosts' capacity.
func TestGeneratorOffersTheLoad(t *testing.T) {
	c, _ := Load("websearch")
	g := NewGenerator(c, 144, 10*sim.Gbps, 0.5, 1)
	var bytes float64
	var last FlowSpec
	const n = 200_000
	for i := 0; i < n; i++ {
		last = g.Next()
		if last.Src == last.Dst || last.Src < 0 || last.Dst >= 144 {
			t.Fatalf("flow %d: %d → %d", i, last.Src, last.Dst)
		}
		bytes += float64(last.Size) * 1500 / 1460
	}
	load := bytes * 8 / last.Start.Seconds() / (144 * 10e9)
	if math.Abs(load-0.5) > 0.02 {
		t.Fatalf("offered load %.3f, want 0.5", load)
	}
}
