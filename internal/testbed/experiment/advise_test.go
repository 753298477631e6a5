package experiment

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/results"
)

// The advice says when a smaller factor met the target in the sweep and missed it on its second
// run, so that a user sees why advise chose a larger factor than the sweep's table suggests.
func TestAdviceTableReportsMissedReruns(t *testing.T) {
	one := AdvicePoint{Factor: 1, PerSec: 1039, Met: true}
	two := AdvicePoint{Factor: 2, PerSec: 1450, Met: true}
	a := &Advice{Program: "memcached", Target: "throughput ≥ 1000 requests/s", Level: kvLevel,
		Points: []AdvicePoint{one, two}, Chosen: &two,
		Confirm: &AdvicePoint{Factor: 2, PerSec: 1708, Met: true},
		Missed:  []AdvicePoint{{Factor: 1, PerSec: 954, P99US: 7226}}}
	var b strings.Builder
	if err := a.Table(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"f5 = 1 met the target in the sweep, missed it on a second run (954 requests/s, p99 7226µs)",
		"advice: f5 = 2",
		"confirmed by a second run: 1708 requests/s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("advice table lacks %q:\n%s", want, out)
		}
	}
	// The factor finally advised is not listed as missed even when its own rerun missed.
	a.Confirm, a.Missed = &AdvicePoint{Factor: 2, PerSec: 900}, append(a.Missed, AdvicePoint{Factor: 2, PerSec: 900})
	b.Reset()
	if err := a.Table(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "f5 = 2 met the target in the sweep") || !strings.Contains(b.String(), "MISSES the target") {
		t.Errorf("a last rerun that missed is reported once, as the confirmation:\n%s", b.String())
	}
}

// A factor above m has no bound: --json writes null there, never a bound of 0 µs, and the table
// says so.
func TestAdvicePointsBoundOnlyWhereGuaranteed(t *testing.T) {
	r := &Results{Model: ModelInfo{Hosts: 4, RateBPS: 100e6, PacketBytes: 1538, EpsilonNS: 100_000, Mesochronous: 2}}
	for _, f5 := range []float64{1, 8} {
		r.Series = append(r.Series, results.Series{Arm: sweepArm(f5, true), Tool: toolMemcached, Metric: metricRequest, Param: f5,
			Stats: results.Stats{Samples: 10, MeanUS: 500, P50US: 400, P99US: 900, MaxUS: 900, PerSec: 1000}})
	}
	pts := advicePoints(r, AdviseTarget{Throughput: 500})
	if len(pts) != 2 {
		t.Fatalf("points: %+v", pts)
	}
	b, err := json.Marshal(pts)
	if err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if bound, ok := back[0]["bound_us"].(float64); !ok || bound <= 0 || back[0]["bound_guaranteed"] != true {
		t.Errorf("f5 = 1: bound_us %v, guaranteed %v; want the model's D5", back[0]["bound_us"], back[0]["bound_guaranteed"])
	}
	if bound, ok := back[1]["bound_us"]; !ok || bound != nil || back[1]["bound_guaranteed"] != false {
		t.Errorf("f5 = 8 > m: bound_us %v (present %v); want null", bound, ok)
	}
	if got := pts[1].bound(); got != "none (f > m)" {
		t.Errorf("f5 = 8 bound in the table: %q", got)
	}
}

// The advice line quotes the chosen factor's rate as the table row above it does, not the
// confirming run's, whose own ε moves it a little.
func TestAdviceQuotesTheTableRow(t *testing.T) {
	two := AdvicePoint{Factor: 2, LevelRateBPS: 24.02e6, PerSec: 2770, Met: true}
	a := &Advice{Program: "memcached", Target: "p99 ≤ 1ms", Level: kvLevel, Points: []AdvicePoint{two}, Chosen: &two,
		Confirm: &AdvicePoint{Factor: 2, LevelRateBPS: 23.79e6, PerSec: 2702, Met: true}}
	var b strings.Builder
	if err := a.Table(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "advice: f5 = 2 (T5 = 24.02Mb/s") {
		t.Errorf("the advice does not quote the table's T5:\n%s", b.String())
	}
}

// Advise runs only what CheckAdvise checked: a run made otherwise (its zero value) is refused
// before anything is built.
func TestAdviseRefusesAnUncheckedRun(t *testing.T) {
	_, err := Advise(context.Background(), AdviseRun{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "CheckAdvise") {
		t.Fatalf("Advise of a zero AdviseRun: %v, want a refusal naming CheckAdvise", err)
	}
}

// The contended arm says which switch ports its bulk fills: with 3 hosts only h3→h1 runs.
func TestMemcachedContendedSaysItsPorts(t *testing.T) {
	for hosts, want := range map[int]string{3: "bulk iperf3 into the client's switch port", 4: "bulk iperf3 into the client's and the server's switch ports"} {
		if got := memcachedContended(memcachedBulk(hosts)); got != want {
			t.Errorf("%d hosts (%s): %q, want %q", hosts, bulkText(memcachedBulk(hosts)), got, want)
		}
	}
}
