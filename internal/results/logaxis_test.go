package results

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
)

// A log plot whose figures are all one value draws: gonum widened such a range by ±1 to 0..2,
// and a log axis panicked at 0 (qjump sim run fig9 --quick --flows 10, where every small flow of
// a panel finished in its ideal time).
func TestLogPlotOfEqualValuesDraws(t *testing.T) {
	curve := func(s Series) string { return s.Arm }
	mean := func(s Stats) float64 { return s.MeanUS }
	for _, tc := range []struct {
		name  string
		value float64
		floor float64
		param []float64
	}{
		{"ideal with the floor", 1, 1, []float64{0.2, 0.5, 0.8}},
		{"one point", 1, 1, []float64{0.5}},
		{"above the floor", 3, 1, []float64{0.2, 0.8}},
		{"no floor", 7, 0, []float64{0.2, 0.8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pts []Series
			for _, arm := range []string{"tcp", "qjump"} {
				for _, x := range tc.param {
					pts = append(pts, Series{Arm: arm, Param: x, Stats: Stats{Samples: 1, MeanUS: tc.value}})
				}
			}
			dir := t.TempDir()
			f, err := ParamPlot{File: "p.png", LogY: true, Floor: tc.floor, Points: pts, Curve: curve, Value: mean}.Draw(dir)
			if err != nil || f != "p.png" {
				t.Fatalf("Draw = %q, %v", f, err)
			}
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("p.png missing or empty: %v", err)
			}
		})
	}
}

// The other log plots draw a single value too: a line, a stack of one-value panels, a sweep whose
// latencies and bound all sit at its floor of 1 µs.
func TestOtherLogPlotsOfEqualValuesDraw(t *testing.T) {
	dir := t.TempDir()
	flat := LinePlot{Title: "flat", LogY: true, Lines: []Line{{Label: "a", Points: []XY{{0, 5}, {1, 5}}}},
		Marks: []Mark{{X: 0.5, Label: "m"}}}
	if f, err := flat.Draw(dir, "line.png"); err != nil || f != "line.png" {
		t.Errorf("LinePlot.Draw = %q, %v", f, err)
	}
	if f, err := (Stack{File: "stack.png", Panels: []LinePlot{flat, flat}, SameY: true}).Draw(dir); err != nil || f != "stack.png" {
		t.Errorf("Stack.Draw = %q, %v", f, err)
	}
	pts := []Series{{Arm: "a", Param: 1, Stats: Stats{Samples: 1, P50US: 0.5, P99US: 0.5, MaxUS: 0.5}}}
	sp := SweepPlot{File: "sweep.png", Points: pts, Bound: func(float64) float64 { return 0 }, BoundLabel: "bound"}
	if f, err := sp.Draw(dir); err != nil || f != "sweep.png" {
		t.Errorf("SweepPlot.Draw = %q, %v", f, err)
	}
}

// fitLogAxis gives every log axis a range above 0 with its minimum under its maximum, and leaves
// a linear axis and a log axis that was already drawable as they were.
func TestFitLogAxis(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		min, max, wantMin, wantMax float64
	}{
		{1, 1, 0.5, 2},
		{0, 4, 0.4, 4},
		{-3, 4, 0.4, 4},
		{inf, -inf, 1, 10}, // nothing drawn
		{0, 0, 1, 10},
		{2, 8, 2, 8},
	} {
		a := plot.New().Y
		a.Scale, a.Min, a.Max = plot.LogScale{}, tc.min, tc.max
		fitLogAxis(&a)
		if a.Min != tc.wantMin || a.Max != tc.wantMax {
			t.Errorf("log axis %g..%g fitted to %g..%g, want %g..%g", tc.min, tc.max, a.Min, a.Max, tc.wantMin, tc.wantMax)
		}
	}
	lin := plot.New().Y
	lin.Min, lin.Max = 1, 1
	fitLogAxis(&lin)
	if lin.Min != 1 || lin.Max != 1 {
		t.Errorf("linear axis 1..1 changed to %g..%g", lin.Min, lin.Max)
	}
}
