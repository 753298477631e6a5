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

// ε is the idle one-way p99 rounded up to 10 µs, never down: a bound's input below what it stands
// for makes the bound short (p99 153 µs gave ε = 150 µs; review, helper-83).
func TestEpsilonRoundsUp(t *testing.T) {
	for _, c := range []struct {
		p99US float64
		want  time.Duration
	}{
		{153, 160 * time.Microsecond}, {150, 150 * time.Microsecond}, {150.0001, 160 * time.Microsecond},
		{117.3, 120 * time.Microsecond}, {3, 10 * time.Microsecond}, {0, 10 * time.Microsecond},
	} {
		if got := epsilonOf(c.p99US); got != c.want {
			t.Errorf("p99 %gµs: ε = %v, want %v", c.p99US, got, c.want)
		}
	}
}
