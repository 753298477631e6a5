package experiment

import (
	"strings"
	"testing"
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
