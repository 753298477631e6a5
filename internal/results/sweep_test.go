package results

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
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

// The paper's regions of Fig. 11 are marked: each letter stands at the middle of its span within
// the x axis, and a region outside it has none (the plots named them only in their titles:
// review, helper-97).
func TestSweepPlotMarksTheRegions(t *testing.T) {
	pl := plot.New()
	pl.X.Min, pl.X.Max = 0.5, 4
	r := SweepPlot{Regions: []float64{1, 2}}.regionLetters(pl)
	if got := fmt.Sprint(r.letters, r.xs); got != "[A B C] [0.75 1.5 3]" {
		t.Errorf("regions on 0.5..4: %s, want [A B C] at [0.75 1.5 3]", got)
	}
	pl.X.Max = 1
	if r := (SweepPlot{Regions: []float64{1, 2}}).regionLetters(pl); fmt.Sprint(r.letters) != "[A]" {
		t.Errorf("regions on 0.5..1: %v, want A alone", r.letters)
	}
	pl.X.Min, pl.X.Max = 2.5, 4
	if r := (SweepPlot{Regions: []float64{1, 2}}).regionLetters(pl); fmt.Sprint(r.letters, r.xs) != "[C] [3.25]" {
		t.Errorf("regions on 2.5..4: %v %v, want C alone at 3.25", r.letters, r.xs)
	}
	if r := (SweepPlot{}).regionLetters(pl); len(r.letters) != 0 {
		t.Errorf("no regions given: letters %v", r.letters)
	}
}
