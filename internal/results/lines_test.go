package results

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/qjump-net/qjump/internal/testutil"
)

// Line plots, stacks and bar charts write a PNG when they have data, and nothing when they have none.
func TestLinePlots(t *testing.T) {
	dir := t.TempDir()
	lp := LinePlot{Title: "t", XLabel: "x", YLabel: "y", LogY: true, Marks: []Mark{{X: 1, Label: "phase"}},
		Lines: []Line{{Label: "a", Points: []XY{{0, 1}, {1, 10}, {2, 0}}}, {Label: "model", Model: true, Points: []XY{{0, 5}, {2, 5}}},
			{Label: "dots", Dots: true, Points: []XY{{0.5, 3}}}}}
	st := Stack{File: "stack.png", Panels: []LinePlot{lp, {Title: "empty"}, lp}, SameY: true}
	bars := Bars{File: "bars.png", Labels: []string{"idle", "busy"}, Values: []float64{1, 30}}
	for name, draw := range map[string]func() (string, error){
		"line.png":  func() (string, error) { return lp.Draw(dir, "line.png") },
		"stack.png": func() (string, error) { return st.Draw(dir) },
		"bars.png":  func() (string, error) { return bars.Draw(dir) },
	} {
		f, err := draw()
		if err != nil || f != name {
			t.Fatalf("draw %s = %q, %v", name, f, err)
		}
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for name, draw := range map[string]func() (string, error){
		"no lines":  func() (string, error) { return LinePlot{Lines: []Line{{Label: "a"}}}.Draw(dir, "x.png") },
		"no panels": func() (string, error) { return Stack{File: "y.png", Panels: []LinePlot{{}}}.Draw(dir) },
		"no bars":   func() (string, error) { return Bars{File: "z.png"}.Draw(dir) },
	} {
		if f, err := draw(); f != "" || err != nil {
			t.Errorf("%s: drew %q, %v", name, f, err)
		}
	}
}

// A stack's panels share one x axis, and a panel's legend keeps clear of its marks' labels: the
// mixed timeline's legend sat on the "alone" phase's label in the top-left corner.
func TestStackSharesXAndKeepsLegendOffMarks(t *testing.T) {
	var low []XY
	for i := 0; i <= 30; i++ {
		low = append(low, XY{X: float64(i), Y: 10})
	}
	marks := []Mark{{X: 0, Label: "alone"}, {X: 9, Label: "contended"}, {X: 22.5, Label: "qjump"}}
	a := LinePlot{Title: "a", LogY: true, Lines: []Line{{Label: "PTP |offset|", Dots: true, Points: low}}, Marks: marks}
	b := LinePlot{Title: "b", LogY: true, Lines: []Line{{Label: "memcached", Dots: true, Points: low[:20]}}, Marks: marks}
	_, plots, curves, err := Stack{Panels: []LinePlot{a, b}}.plots()
	if err != nil || len(plots) != 2 {
		t.Fatalf("plots: %d panels, %v", len(plots), err)
	}
	pa, pb := plots[0][0], plots[1][0]
	// b's points end at 19 and its marks at 22.5: only the shared axis takes it to a's 30.
	if pa.X.Min != pb.X.Min || pa.X.Max != pb.X.Max || pb.X.Min > 0 || pb.X.Max < 30 {
		t.Errorf("x ranges [%g, %g] and [%g, %g], want one covering both panels' [0, 30]", pa.X.Min, pa.X.Max, pb.X.Min, pb.X.Max)
	}
	pa.Y.Max = 3000 // room above the points, as the measured PTP offsets leave
	c := canvasOf(8*vg.Inch, 3*vg.Inch)
	placePanelLegend(a, pa, c, curves[0]) // as Stack.Draw places each panel's legend
	if pa.Legend.Top && pa.Legend.Left {
		t.Error("the legend took the top-left corner, over the first mark's label")
	}
}

// A plot whose points all have one x (a sweep stopped after its first load) spans a range around
// that x, from 0 where the x is positive: gonum's default drew loads from -0.75 to 1.25. So do
// Fig. 9's panels (ParamPlot) and fan-in's (SweepPlot), which the first fix missed (review,
// helper-75).
func TestSingleXKeepsTheAxisAroundIt(t *testing.T) {
	var saved *plot.Plot
	testutil.Set(t, &savePlot, func(pl *plot.Plot, _, _ vg.Length, _ string) error { saved = pl; return nil })
	at := func(x float64) []Series {
		return []Series{{Arm: "a", Param: x, HasParam: true, Stats: Stats{Samples: 2, P50US: 1, P99US: 2, MaxUS: 3}}}
	}
	for _, c := range []struct{ x, lo, hi float64 }{{0.2, 0.1, 0.3}, {4, 2, 6}, {0, 0, 1}, {-2, -3, -1}} {
		drawers := map[string]func() (string, error){
			"LinePlot": func() (string, error) {
				return LinePlot{Lines: []Line{{Label: "a", Points: []XY{{c.x, 1}, {c.x, 3}}}}}.Draw(t.TempDir(), "l.png")
			},
			"ParamPlot": func() (string, error) {
				return ParamPlot{File: "p.png", Points: at(c.x), Curve: func(Series) string { return "a" }, Value: func(s Stats) float64 { return s.P99US }}.Draw(t.TempDir())
			},
			"SweepPlot": func() (string, error) {
				return SweepPlot{File: "s.png", Points: at(c.x), Bound: func(float64) float64 { return 5 }}.Draw(t.TempDir())
			},
		}
		for name, draw := range drawers {
			saved = nil
			if f, err := draw(); err != nil || f == "" || saved == nil {
				t.Fatalf("%s at x = %g: drew %q, %v", name, c.x, f, err)
			}
			if math.Abs(saved.X.Min-c.lo) > 1e-12 || math.Abs(saved.X.Max-c.hi) > 1e-12 {
				t.Errorf("%s, points at x = %g: x axis %g to %g, want %g to %g", name, c.x, saved.X.Min, saved.X.Max, c.lo, c.hi)
			}
		}
	}
}
