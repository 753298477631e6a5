package experiment

import (
	"testing"
	"time"
)

// An arm that its time limit stopped before the plan's rounds says so, with how far each
// participant got; the review's quick qjump arm measured 5,216 rounds of the 6,000 planned and
// said nothing (helper-83).
func TestBarrierTruncationSaysWhere(t *testing.T) {
	plan := barrierPlanFor(true, 1546*time.Microsecond)
	for _, c := range []struct {
		rounds []int
		want   string
	}{
		{[]int{1500, 1500, 1500, 1500}, ""},
		{[]int{1304, 1304, 1304, 1304}, "stopped by its 6s time limit after 1304 of 1500 rounds per participant"},
		{[]int{471, 473, 472, 471}, "stopped by its 6s time limit after 471-473 of 1500 rounds per participant"},
		{nil, ""},
	} {
		if got := plan.truncation(c.rounds); got != c.want {
			t.Errorf("rounds %v: %q, want %q", c.rounds, got, c.want)
		}
	}
}
