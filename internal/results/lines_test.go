package results

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

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

// A stack's panels share one x axis, and a panel's legend never covers its marks' labels: the
// mixed timeline's legend sat on the "alone" phase's label in the top-left corner, and then, with
// the labels only curves to cross as little as it could, on "qjump" in the top-right one, where
// the memcached panel's samples filled both bottom corners (review, helper-83).
func TestStackSharesXAndKeepsLegendOffMarks(t *testing.T) {
	var low, high, busy []XY
	for i := 0; i <= 30; i++ {
		low = append(low, XY{X: float64(i), Y: 10})
	}
	// The memcached panel: requests every 10 ms of 60-300 µs alone and with QJump, ~10 ms
	// contended, from 0 to 30 s.
	for i := 0; i <= 3000; i++ {
		x := float64(i) / 100
		switch {
		case x > 7 && x < 9, x > 20 && x < 22.7:
		case x >= 9 && x <= 20:
			busy = append(busy, XY{X: x, Y: 9000 + float64(i%7)*300})
		default:
			busy = append(busy, XY{X: x, Y: 60 + float64(i%5)*60})
			high = append(high, XY{X: x, Y: 900 + float64(i%3)*100})
		}
	}
	marks := []Mark{{X: 0, Label: "alone"}, {X: 9, Label: "contended"}, {X: 22.7, Label: "qjump"}}
	a := LinePlot{Title: "a", LogY: true, Lines: []Line{{Label: "PTP |offset|", Dots: true, Points: low}}, Marks: marks}
	short := LinePlot{Title: "short", LogY: true, Lines: []Line{{Label: "x", Dots: true, Points: low[:20]}}, Marks: marks}
	_, plots, _, err := Stack{Panels: []LinePlot{a, short}}.plots()
	if err != nil || len(plots) != 2 {
		t.Fatalf("plots: %d panels, %v", len(plots), err)
	}
	pa, pb := plots[0][0], plots[1][0]
	// short's points end at 19 and its marks at 22.7: only the shared axis takes it to a's 30.
	if pa.X.Min != pb.X.Min || pa.X.Max != pb.X.Max || pb.X.Min > 0 || pb.X.Max < 30 {
		t.Errorf("x ranges [%g, %g] and [%g, %g], want one covering both panels' [0, 30]", pa.X.Min, pa.X.Max, pb.X.Min, pb.X.Max)
	}
	kv := LinePlot{Title: "Fig. 5: memcached request latency (level 5)", LogY: true, Marks: marks,
		Lines: []Line{{Label: "memcached request", Dots: true, Points: append(busy, high...)}}}
	for _, p := range []LinePlot{a, kv} {
		_, plots, curves, err := Stack{Panels: []LinePlot{p}}.plots()
		if err != nil {
			t.Fatal(err)
		}
		pl, c := plots[0][0], canvasOf(8*vg.Inch, 3*vg.Inch)
		placePanelLegend(p, pl, c, curves[0]) // as Stack.Draw places each panel's legend
		legend := placedLegend(pl, c)
		for i, box := range markLabelBoxes(p, pl, c) {
			if overlaps(legend, box) {
				t.Errorf("panel %q: the legend (top %v, left %v, down %v) covers the label %q", p.Title, pl.Legend.Top, pl.Legend.Left, -pl.Legend.YOffs, marks[i].Label)
			}
		}
	}
}

// placedLegend is the box pl's legend takes where placeLegend put it, drawn on c.
func placedLegend(pl *plot.Plot, c draw.Canvas) vg.Rectangle {
	lc := legendCanvas(pl, c, pl.DataCanvas(c))
	r := cornerBox(lc, pl.Legend.Rectangle(lc).Size(), pl.Legend.Top, pl.Legend.Left)
	r.Min.Y, r.Max.Y = r.Min.Y+pl.Legend.YOffs, r.Max.Y+pl.Legend.YOffs
	return r
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

// A bar chart keeps its outermost bars off the frame and room above the tallest for its value's
// label: Fig. 7's first and last bars sat against the frame and the top label ran into it
// (review, helper-83).
func TestBarsStayInsideTheFrame(t *testing.T) {
	var saved *plot.Plot
	testutil.Set(t, &savePlot, func(pl *plot.Plot, _, _ vg.Length, _ string) error { saved = pl; return nil })
	b := Bars{File: "b.png", Title: "t", YLabel: "RMS / alone's RMS", Labels: []string{"alone", "contended", "qjump"}, Values: []float64{1, 333, 1.7}}
	if f, err := b.Draw(t.TempDir()); err != nil || f == "" || saved == nil {
		t.Fatalf("drew %q, %v", f, err)
	}
	if saved.X.Min > -0.5 || saved.X.Max < 2.5 {
		t.Errorf("x axis %g to %g: the bars at 0 and 2 sit against the frame; want at least -0.5 to 2.5", saved.X.Min, saved.X.Max)
	}
	if saved.Y.Min != 0 || saved.Y.Max < 333*1.15 {
		t.Errorf("y axis %g to %g: want from 0, with room above 333 for its label", saved.Y.Min, saved.Y.Max)
	}
}

// A rate's linear axis is read from 0, and 0 is labelled: Fig. 6 began at tcp's lowest rate and
// labelled 400, 1200, 2000 (review, helper-83).
func TestLinearAxisFromZero(t *testing.T) {
	var saved *plot.Plot
	testutil.Set(t, &savePlot, func(pl *plot.Plot, _, _ vg.Length, _ string) error { saved = pl; return nil })
	lp := LinePlot{Lines: []Line{{Label: "tcp", Unjoined: true, Points: []XY{{0, 1198}, {4, 0.137}}}, {Label: "qjump", Unjoined: true, Points: []XY{{0, 1716}, {4, 809}}}}}
	if f, err := lp.Draw(t.TempDir(), "l.png"); err != nil || f == "" || saved == nil {
		t.Fatalf("drew %q, %v", f, err)
	}
	if saved.Y.Min != 0 {
		t.Errorf("y axis from %g, want 0", saved.Y.Min)
	}
	zero := false
	for _, tick := range saved.Y.Tick.Marker.Ticks(saved.Y.Min, saved.Y.Max) {
		zero = zero || tick.Value == 0 && tick.Label == "0"
	}
	if !zero {
		t.Errorf("no tick labelled 0 on %g to %g: %v", saved.Y.Min, saved.Y.Max, saved.Y.Tick.Marker.Ticks(saved.Y.Min, saved.Y.Max))
	}
}

// A stack's markers at the last x are drawn whole: the panels reached the image's right edge, so
// Fig. 10's markers at its largest factor were cut in half (review, helper-92). The image's last
// columns are background wherever a marker would be cut.
func TestStackKeepsMarkersInsideTheImage(t *testing.T) {
	dir := t.TempDir()
	lp := LinePlot{Title: "t", XLabel: "f5", YLabel: "requests / s", Lines: []Line{
		{Label: "a", Points: []XY{{1, 1}, {8.33, 12000}}}, {Label: "b", Points: []XY{{1, 1}, {8.33, 4700}}}}}
	f, err := Stack{File: "s.png", Panels: []LinePlot{lp, lp}}.Draw(dir)
	if err != nil || f == "" {
		t.Fatalf("drew %q, %v", f, err)
	}
	checkRightEdgeBlank(t, filepath.Join(dir, f))
}

// A single plot keeps a right margin (savePlot, plotArea) so that the markers at its last x are
// whole: fan-in's at f7 = 4 were cut by the image's edge (review, helper-100: removing the crop
// left the package green).
func TestPlotKeepsMarkersInsideTheImage(t *testing.T) {
	dir := t.TempDir()
	lp := LinePlot{Title: "t", XLabel: "f7", YLabel: "µs", Lines: []Line{
		{Label: "a", Points: []XY{{0.5, 100}, {4, 12000}}}, {Label: "b", Points: []XY{{0.5, 10}, {4, 4700}}}}}
	f, err := lp.Draw(dir, "line.png")
	if err != nil || f == "" {
		t.Fatalf("line plot: drew %q, %v", f, err)
	}
	checkRightEdgeBlank(t, filepath.Join(dir, f))
	sp := SweepPlot{File: "sweep.png", Param: "f7", BoundLabel: "bound", Bound: func(f7 float64) float64 { return 500 * f7 },
		Points: []Series{{Param: 0.5, Stats: Stats{Samples: 9, P50US: 50, P99US: 90, MaxUS: 100}},
			{Param: 4, Stats: Stats{Samples: 9, P50US: 500, P99US: 900, MaxUS: 1000}}}}
	if f, err = sp.Draw(dir); err != nil || f == "" {
		t.Fatalf("sweep plot: drew %q, %v", f, err)
	}
	checkRightEdgeBlank(t, filepath.Join(dir, f))
}

// checkRightEdgeBlank fails t unless the last two pixel columns of the PNG at path are white.
func checkRightEdgeBlank(t *testing.T, path string) {
	t.Helper()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, err := png.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	for x := b.Max.X - 2; x < b.Max.X; x++ {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r != 0xffff || g != 0xffff || bl != 0xffff {
				t.Errorf("%s: pixel (%d, %d) of a %dx%d image is drawn: a marker at the last x reaches the image's edge", filepath.Base(path), x, y, b.Dx(), b.Dy())
				return
			}
		}
	}
}
