package results

import (
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// labels are the labelled ticks' values, checked to be within [min, max] and to print as
// themselves.
func labels(t *testing.T, min, max float64) []float64 {
	t.Helper()
	var out []float64
	for _, tk := range (logTicks{}).Ticks(min, max) {
		if tk.Value < min || tk.Value > max {
			t.Fatalf("[%g, %g]: tick %g outside the range", min, max, tk.Value)
		}
		if tk.Label == "" {
			continue
		}
		v, err := strconv.ParseFloat(tk.Label, 64)
		if err != nil || v != tk.Value {
			t.Fatalf("[%g, %g]: tick %g labelled %q", min, max, tk.Value, tk.Label)
		}
		out = append(out, tk.Value)
	}
	return out
}

// gonum's LogTicks labels powers of ten only, so an axis within a decade had no number on it;
// ours always has some, and the sparsest series that gives enough.
func TestLogTicksLabelEveryRange(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []float64
	}{
		{1, 1e6, []float64{1, 10, 100, 1000, 10000, 100000, 1e6}}, // decades: powers of ten
		{1, 50, []float64{1, 2, 5, 10, 20, 50}},                   // 1-2-5
		{1.2, 8, []float64{2, 3, 5}},                              // 1-2-3-5
		{2.6, 9, []float64{3, 4, 5, 6, 8}},                        // 1-1.5-2-3-4-5-6-8
		{1.15, 2.7, []float64{1.2, 1.5, 2, 2.5}},                  // with 1.2 and 2.5
		{0.25, 0.95, []float64{0.3, 0.4, 0.5, 0.6, 0.8}},          // below 1, printed exactly
		{1.01, 1.05, []float64{1.01, 1.05}},                       // narrower than any: the ends
		{20, 90, []float64{20, 30, 50}},                           // a latency axis in µs
	} {
		got := labels(t, c.min, c.max)
		if len(got) != len(c.want) {
			t.Fatalf("[%g, %g]: labels %v, want %v", c.min, c.max, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("[%g, %g]: labels %v, want %v", c.min, c.max, got, c.want)
			}
		}
	}
	if got := (plot.LogTicks{Prec: -1}).Ticks(1.2, 8); countLabels(got, 1.2, 8) != 0 {
		t.Fatalf("gonum's LogTicks now labels [1.2, 8] (%d labels): the reason for logTicks is gone", countLabels(got, 1.2, 8))
	}
}

func countLabels(ticks []plot.Tick, min, max float64) int {
	n := 0
	for _, tk := range ticks {
		if tk.Label != "" && tk.Value >= min && tk.Value <= max {
			n++
		}
	}
	return n
}

// Unlabelled ticks mark the other integer mantissas, so that the axis still reads as a log axis.
func TestLogTicksMarkMinorTicks(t *testing.T) {
	minor := 0
	for _, tk := range (logTicks{}).Ticks(1, 100) {
		if tk.Label == "" {
			minor++
		}
	}
	if minor != 2*8 { // 2..9 and 20..90: 1, 10 and 100 are labelled
		t.Fatalf("%d minor ticks on [1, 100]", minor)
	}
}

// A linear axis gets round labels at a 1-2-5 step, never gonum's 0.00, 25.00 for a time axis of
// 30 s, nor "-0" for an axis that starts a hair below 0.
func TestLinTicks(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []string
	}{
		{0, 30.3, []string{"0", "10", "20", "30"}},
		{-0.05, 6.1, []string{"0", "2", "4", "6"}},
		{1, 8.325, []string{"2", "4", "6", "8"}},
		{0, 0.05, []string{"0", "0.02", "0.04"}},
		{1500, 2600, []string{"1500", "2000", "2500"}},
	} {
		var got []string
		for _, tk := range (linTicks{}).Ticks(c.min, c.max) {
			if tk.Value < c.min || tk.Value > c.max {
				t.Fatalf("[%g, %g]: tick %g outside the range", c.min, c.max, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("[%g, %g]: labels %q, want %q", c.min, c.max, got, c.want)
		}
	}
}
