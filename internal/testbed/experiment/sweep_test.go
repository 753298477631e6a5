package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
)

// sweepFixture is a quick memcached-sweep's results without a testbed: the idle arm and each
// factor without and with bulk at the given requests/s (the review's run, helper-83: ε = 120 µs,
// so the cap is 1,338/s at f5 = 1).
func sweepFixture(idle float64, quiet, bulk map[float64]float64) *Results {
	r := &Results{Header: results.Header{Experiment: "memcached-sweep", Quick: true}, Testbed: testbed.DefaultConfig(4)}
	r.Model = modelInfo(r.Testbed, 120*time.Microsecond)
	add := func(arm string, f5, perSec float64) {
		r.Series = append(r.Series, results.Series{Arm: arm, Tool: toolMemcached, Metric: metricRequest, Param: f5, HasParam: f5 > 0,
			Stats: results.Stats{Samples: 1000, P50US: 100, P99US: 400, PerSec: perSec}})
	}
	add("idle", 0, idle)
	for _, f5 := range []float64{1, 2, 4, 8.975} {
		add(sweepArm(f5, false), f5, quiet[f5])
		add(sweepArm(f5, true), f5, bulk[f5])
	}
	return r
}

// throughput-capped says which runs it judges and prints its range; the runs with bulk are
// judged where the cap binds beside bulk, against memcached's rate there at the largest factor:
// the review's f5 = 4 with bulk reached 0.46 × its cap because the machine's cores, not the
// factor, held memcached to 2,589/s, which every factor from 2 up shared (review, helper-83).
func TestSweepJudgesEachRunWhereItsCapBinds(t *testing.T) {
	quiet := map[float64]float64{1: 1344.6, 2: 2588.5, 4: 5250.3, 8.975: 10819.2}
	bulk := map[float64]float64{1: 1224.4, 2: 2169.8, 4: 2482.9, 8.975: 2588.8}
	ts := sweepTargets(sweepFixture(10393.7, quiet, bulk))
	if len(ts) != 3 || ts[0].Name != "throughput-capped" || ts[1].Name != "throughput-capped-with-bulk" {
		t.Fatalf("targets %+v", ts)
	}
	c, b := ts[0], ts[1]
	if !strings.Contains(c.Criterion, "runs without bulk") || !strings.Contains(b.Criterion, "runs with bulk") ||
		!strings.Contains(b.Criterion, "largest factor, f5=8.97 bulk, which binds nothing") {
		t.Errorf("criteria do not say which runs they judge:\n%s\n%s", c.Criterion, b.Criterion)
	}
	if !c.Met || !strings.Contains(c.Verdict(), "range 0.75..1.25 ×, nearest bound 0.75 ×") || !strings.Contains(c.Note, "f5=2,") {
		t.Errorf("without bulk: %s", c.Verdict())
	}
	// Only f5 = 1's cap (1,338/s) is below 2,589/s: 1,224/s is 0.915 of it. f5 = 2 and 4 are
	// held by the machine and not judged.
	if !b.Evaluated || !b.Met || b.Value != 0.915 || !strings.Contains(b.Note, "f5=1 bulk") {
		t.Errorf("with bulk: %s", b.Verdict())
	}
	// A factor that binds beside bulk and does not deliver its cap misses: the network starved it.
	bulk[1] = 700
	if b := sweepTargets(sweepFixture(10393.7, quiet, bulk))[1]; !b.Evaluated || b.Met || b.Limit != 0.75 {
		t.Errorf("f5 = 1 with bulk at half its cap: %s", b.Verdict())
	}
	// Starved at every factor, as if QJump kept nothing from bulk: the largest factor's rate,
	// the yardstick, is starved too, and was taken as what the machine leaves, so that no factor
	// was judged (NOT EVALUATED). It is judged against the smallest factor's cap instead: 300/s
	// of 1,338/s misses (review, helper-92).
	starved := map[float64]float64{1: 300, 2: 310, 4: 305, 8.975: 300}
	if b := sweepTargets(sweepFixture(10393.7, quiet, starved))[1]; !b.Evaluated || b.Met || !strings.Contains(b.Note, "under the cap of the smallest factor") {
		t.Errorf("starved beside bulk at every factor: %s (%s)", b.Verdict(), b.Note)
	}
}
