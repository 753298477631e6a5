package results

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// A point that lost samples is ringed on its maximum with the share lost; one that lost them all,
// which has no maximum, at the floor given; a clean point not at all.
func TestLossMarks(t *testing.T) {
	pts := SeriesOf(append(append(rowsOf("f7=0.5", 0.5, 0, 50, 60), rowsOf("f7=2", 2, 1, 500, 900)...), rowsOf("f7=1", 1, 2)...))
	at, labels := lossMarks(pts, 40)
	want := plotter.XYs{{X: 2, Y: 900}, {X: 1, Y: 40}}
	if len(at) != len(want) || at[0] != want[0] || at[1] != want[1] ||
		len(labels) != 2 || labels[0] != "33%" || labels[1] != "all lost" {
		t.Errorf("lossMarks = %v %q; want %v [33%% all lost]", at, labels, want)
	}
	if at, labels := lossMarks(pts[:1], 40); at != nil || labels != nil {
		t.Errorf("lossMarks of a clean point = %v %q; want none", at, labels)
	}
}

// The share lost has two significant digits and never reads 0 % or 100 % when some, but not all,
// were lost.
func TestLostShare(t *testing.T) {
	for _, c := range []struct {
		lost, samples int
		want          string
	}{
		{1, 3, "33%"}, {1, 2, "50%"}, {91449, 1091449, "8.4%"}, {12, 1000, "1.2%"}, {100, 1000, "10%"},
		{1, 1000000, "0.0001%"}, {995, 1000, "99.5%"}, {999999, 1000000, "99.9999%"}, {3, 3, "100%"},
	} {
		if got := lostShare(c.lost, c.samples); got != c.want {
			t.Errorf("lostShare(%d, %d) = %q, want %q", c.lost, c.samples, got, c.want)
		}
	}
}

// A sweep whose points lost probes draws otherwise than the same delivered latencies without loss:
// the figures of the delivered alone, which are all the curves show, cannot tell them apart.
func TestSweepPlotShowsLosses(t *testing.T) {
	dir := t.TempDir()
	sweep := func(file string, lost int) []byte {
		t.Helper()
		pts := append(SeriesOf(rowsOf("f7=0.5", 0.5, 0, 50, 60)), SeriesOf(rowsOf("f7=2", 2, lost, 500, 900))...)
		bound := func(f7 float64) float64 { return 1000 * f7 }
		if f, err := (SweepPlot{File: file, Param: "f7", Points: pts, Bound: bound, BoundLabel: "bound", Samples: "probes"}).Draw(dir); f != file || err != nil {
			t.Fatalf("Draw = %q, %v", f, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	clean, again, lossy := sweep("clean.png", 0), sweep("again.png", 0), sweep("lossy.png", 5)
	if !bytes.Equal(clean, again) {
		t.Fatal("the same sweep drew two different images")
	}
	if bytes.Equal(clean, lossy) {
		t.Error("a sweep that lost 5 of 7 probes at f7=2 drew the same image as one that lost none")
	}
}

// The paper's regions of Fig. 11 are marked: B and C shaded beneath the data, A not, each band
// across its span of the x axis (the plots named them only in their titles: review, helper-97;
// letters over the plot covered the data: review, helper-100).
func TestSweepPlotShadesTheRegions(t *testing.T) {
	b := SweepPlot{Param: "f7", Regions: []float64{1, 2}}.bands()
	var from, to []float64
	for i := range b.edges {
		f, t := b.span(i)
		from, to = append(from, f), append(to, t)
	}
	if got := fmt.Sprint(from, to); got != "[1 2] [2 +Inf]" {
		t.Fatalf("bands %s, want B from 1 to 2 and C from 2 on", got)
	}
	pl := plot.New()
	pl.X.Min, pl.X.Max = 0.5, 4
	img := vgimg.New(400, 100)
	c := draw.New(img)
	b.Plot(c, pl)
	trX, _ := pl.Transforms(&c)
	shadeAt := func(x float64) color.Color {
		return img.Image().At(int(trX(x)/vg.Length(400)*vg.Length(img.Image().Bounds().Dx())), img.Image().Bounds().Dy()/2)
	}
	same := func(a, b color.Color) bool {
		r1, g1, b1, _ := a.RGBA()
		r2, g2, b2, _ := b.RGBA()
		return r1 == r2 && g1 == g2 && b1 == b2
	}
	for _, c := range []struct {
		x    float64
		want color.Color
	}{{0.75, color.White}, {1.5, b.shade(0)}, {3, b.shade(1)}} {
		if got := shadeAt(c.x); !same(got, c.want) && !(c.want == color.White && same(got, color.Transparent)) {
			t.Errorf("at f7 = %g: %v, want %v", c.x, got, c.want)
		}
	}
	if (SweepPlot{}).bands().edges != nil {
		t.Error("no regions given: bands drawn")
	}
}
