package results

import (
	"fmt"
	"image/color"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// SweepPlot draws latency percentiles and the maximum of series against their swept parameter, on
// a log latency axis, beside a model's bound, as the paper's Fig. 11 does: with a horizontal floor
// (the idle network's own maximum) and a vertical line where the maximum first exceeds the bound.
type SweepPlot struct {
	File       string // PNG file name in the output directory
	Title      string
	XLabel     string
	YLabel     string
	Param      string                      // the parameter's name in the legend (f7)
	Points     []Series                    // one point each, at its Param (none for an Empty series)
	Bound      func(param float64) float64 // the bound in µs at a parameter
	BoundLabel string
	FloorUS    float64 // drawn when FloorLabel is set
	FloorLabel string
}

// boundColor is the colour of a model's bound in every plot.
var boundColor = color.RGBA{R: 200, A: 255}

// sweepLine is one curve: a figure of each point.
type sweepLine struct {
	label string
	get   func(Series) float64
}

// Draw writes the plot into dir and returns its file name, or "" when there are no points.
func (p SweepPlot) Draw(dir string) (string, error) {
	var pts []Series
	for _, s := range p.Points {
		if !s.Empty() {
			pts = append(pts, s)
		}
	}
	if len(pts) == 0 {
		return "", nil
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].Param < pts[j].Param })
	pl := plot.New()
	pl.Title.Text, pl.X.Label.Text, pl.Y.Label.Text = p.Title, p.XLabel, p.YLabel
	pl.Y.Scale = plot.LogScale{}
	pl.Y.Tick.Marker = logTicks{}
	pl.Add(plotter.NewGrid())
	lines := []sweepLine{
		{"p50", func(s Series) float64 { return s.P50US }},
		{"p99", func(s Series) float64 { return s.P99US }},
		{"max", func(s Series) float64 { return s.MaxUS }},
		{p.BoundLabel, func(s Series) float64 { return p.Bound(s.Param) }},
	}
	var curves []plotter.XYs
	for i, l := range lines {
		xy, err := p.addLine(pl, pts, i, l, i == len(lines)-1)
		if err != nil {
			return "", err
		}
		curves = append(curves, xy)
	}
	if p.FloorLabel != "" {
		curves = append(curves, p.addFloor(pl, pts))
	}
	// The line where the maximum first exceeds the bound spans the axis's height: it is not among
	// the curves the legend keeps clear of, and it reaches the top the legend leaves (set below).
	var over *plotter.Line
	if x, ok := FirstOver(pts, p.Bound); ok {
		if line, err := plotter.NewLine(plotter.XYs{{X: x, Y: 1}, {X: x, Y: pl.Y.Max}}); err == nil {
			line.Dashes = plotutil.Dashes(1)
			pl.Add(line)
			pl.Legend.Add(fmt.Sprintf("max first exceeds bound (%s=%g)", p.Param, x), line)
			over = line
		}
	}
	w, h := 7*vg.Inch, 4.5*vg.Inch
	placeLegend(pl, canvasOf(w, h), curves, raiseTop)
	if over != nil {
		over.XYs[1].Y = pl.Y.Max
	}
	if err := savePlot(pl, w, h, filepath.Join(dir, p.File)); err != nil {
		return "", fmt.Errorf("save %s: %w", p.File, err)
	}
	return p.File, nil
}

// addLine draws l and returns its points.
func (p SweepPlot) addLine(pl *plot.Plot, pts []Series, i int, l sweepLine, bound bool) (plotter.XYs, error) {
	xy := make(plotter.XYs, len(pts))
	for j, s := range pts {
		xy[j] = plotter.XY{X: s.Param, Y: max(l.get(s), 1)}
	}
	line, points, err := plotter.NewLinePoints(xy)
	if err != nil {
		return nil, err
	}
	line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
	points.Shape = plotutil.Shape(i)
	if bound {
		line.Color, points.Color = boundColor, boundColor
		line.Dashes = plotutil.Dashes(2)
		line.Width = vg.Points(2)
	}
	pl.Add(line, points)
	pl.Legend.Add(l.label, line, points)
	return xy, nil
}

// addFloor draws the floor and returns its points (none if it could not be drawn).
func (p SweepPlot) addFloor(pl *plot.Plot, pts []Series) plotter.XYs {
	y := max(p.FloorUS, 1)
	xy := plotter.XYs{{X: pts[0].Param, Y: y}, {X: pts[len(pts)-1].Param, Y: y}}
	line, err := plotter.NewLine(xy)
	if err != nil {
		return nil
	}
	line.Color = plotutil.Color(5)
	line.Dashes = plotutil.Dashes(3)
	pl.Add(line)
	pl.Legend.Add(p.FloorLabel, line)
	return xy
}

// FirstOver is the smallest parameter among pts (sorted by Param) whose maximum exceeds bound.
func FirstOver(pts []Series, bound func(param float64) float64) (float64, bool) {
	for _, s := range pts {
		if s.MaxUS > bound(s.Param) {
			return s.Param, true
		}
	}
	return 0, false
}
