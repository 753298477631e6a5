package results

import (
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// legendPlot is a log-y plot of the curves, each with a legend entry, as ParamPlot draws them.
func legendPlot(t *testing.T, curves []plotter.XYs) *plot.Plot {
	t.Helper()
	pl := plot.New()
	pl.Title.Text = "t"
	pl.Y.Scale, pl.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	for i, xy := range curves {
		line, err := plotter.NewLine(xy)
		if err != nil {
			t.Fatal(err)
		}
		pl.Add(line)
		pl.Legend.Add([]string{"tcp", "dctcp", "pfabric", "qjump"}[i%4], line)
	}
	return pl
}

// The legend goes to the first corner (top left, top right, bottom right, bottom left) that no
// curve crosses.
func TestLegendAvoidsTheCurves(t *testing.T) {
	falling := plotter.XYs{{X: 0, Y: 100}, {X: 1, Y: 1}} // through top left and bottom right
	pl := legendPlot(t, []plotter.XYs{falling})
	max := pl.Y.Max
	placeLegend(pl, canvasOf(5*vg.Inch, 3.5*vg.Inch), []plotter.XYs{falling}, raiseTop)
	if !pl.Legend.Top || pl.Legend.Left || pl.Y.Max != max {
		t.Fatalf("legend top %v left %v, y max %g (was %g): want top right, axis unchanged", pl.Legend.Top, pl.Legend.Left, pl.Y.Max, max)
	}
	if pl.Legend.XOffs != -legendInset {
		t.Errorf("right-hand legend offset %v, want %v: its markers would be cut at the canvas's edge", pl.Legend.XOffs, -legendInset)
	}
	rising := plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 100}} // through bottom left and top right
	pl = legendPlot(t, []plotter.XYs{rising})
	placeLegend(pl, canvasOf(5*vg.Inch, 3.5*vg.Inch), []plotter.XYs{rising}, raiseTop)
	if !pl.Legend.Top || !pl.Legend.Left {
		t.Fatalf("legend top %v left %v: want top left", pl.Legend.Top, pl.Legend.Left)
	}
	if pl.Legend.XOffs != 0 {
		t.Errorf("left-hand legend offset %v, want 0", pl.Legend.XOffs)
	}
}

// When curves cross every corner, the axis's top is raised until the legend clears them.
func TestLegendRaisesTheTopWhenEveryCornerIsCrossed(t *testing.T) {
	curves := []plotter.XYs{
		{{X: 0, Y: 100}, {X: 1, Y: 1}},
		{{X: 0, Y: 1}, {X: 1, Y: 100}},
	}
	pl := legendPlot(t, curves)
	max := pl.Y.Max
	placeLegend(pl, canvasOf(5*vg.Inch, 3.5*vg.Inch), curves, raiseTop)
	if pl.Y.Max <= max || !pl.Legend.Top {
		t.Fatalf("y max %g (was %g), legend top %v: want the top raised and the legend there", pl.Y.Max, max, pl.Legend.Top)
	}
	if _, fewest := clearestCorner(pl, canvasOf(5*vg.Inch, 3.5*vg.Inch), curves); fewest != 0 {
		t.Fatalf("the legend still covers %d samples", fewest)
	}
}
