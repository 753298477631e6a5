package experiment

import (
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
)

// A given ε is kept, 0 included: --epsilon 0 was taken as the flag left out, and the run put the
// idle p99 it measured into qjump up instead.
func TestGivenEpsilonIsKept(t *testing.T) {
	c := withDefaults(experiments["fan-in"], testbed.DefaultConfig(0))
	for _, given := range []bool{true, false} {
		env := newEnv(experiments["fan-in"], Options{Testbed: c, Epsilon: 0, EpsilonGiven: given})
		env.record([]results.Row{{Arm: "idle-probe", Tool: toolProbe, Metric: metricOneWay, LatencyNS: int64(50 * time.Microsecond)}})
		env.measureEpsilon("idle-probe")
		if want := map[bool]int64{true: 0, false: int64(50 * time.Microsecond)}[given]; env.res.Model.EpsilonNS != want {
			t.Errorf("ε given %v: ε = %dns, want %dns", given, env.res.Model.EpsilonNS, want)
		}
	}
}
