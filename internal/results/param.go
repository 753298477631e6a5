package results

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// ParamPlot draws one figure of series against their swept parameter, one curve per group: the
// simulator's normalised flow completion time of each scheme against the offered load, as the
// paper's Fig. 9 panels show it.
type ParamPlot struct {
	File   string // PNG file name in the output directory
	Title  string
	XLabel string
	YLabel string
	LogY   bool
	Points []Series
	Curve  func(Series) string // the curve a series belongs to; curves are drawn in order of first appearance
	Value  func(Stats) float64 // the figure drawn
	// Floor, when positive, is a value the y axis always reaches down to, so that curves near it
	// can be read against a label: a normalised FCT is at least 1, the ideal.
	Floor float64
}

// Draw writes the plot into dir and returns its file name, or "" when no series has a figure. An
// Empty series, one whose figure is not finite, or one whose figure is not positive on a log axis
// has no point.
func (p ParamPlot) Draw(dir string) (string, error) {
	curves := map[string]plotter.XYs{}
	var order []string
	for _, s := range p.Points {
		name := p.Curve(s)
		if _, ok := curves[name]; !ok {
			order = append(order, name)
			curves[name] = nil
		}
		v := p.Value(s.Stats)
		if s.Empty() || math.IsNaN(v) || math.IsInf(v, 0) || (p.LogY && v <= 0) {
			continue
		}
		curves[name] = append(curves[name], plotter.XY{X: s.Param, Y: v})
	}
	pl := plot.New()
	pl.Title.Text, pl.X.Label.Text, pl.Y.Label.Text = p.Title, p.XLabel, p.YLabel
	if p.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicks{}
	}
	pl.Add(plotter.NewGrid())
	var drawn []plotter.XYs
	for i, name := range order {
		xy := curves[name]
		if len(xy) == 0 {
			continue
		}
		sort.Slice(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return "", fmt.Errorf("plot %s: %w", name, err)
		}
		line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		pl.Add(line, points)
		pl.Legend.Add(name, line, points)
		drawn = append(drawn, xy)
	}
	if len(drawn) == 0 {
		return "", nil
	}
	fitSingleX(pl) // a sweep stopped after its first load
	if p.Floor > 0 {
		pl.Y.Min = min(pl.Y.Min, p.Floor)
	}
	w, h := 5*vg.Inch, 3.5*vg.Inch
	placeLegend(pl, canvasOf(w, h), drawn, raiseTop)
	if err := savePlot(pl, w, h, filepath.Join(dir, p.File)); err != nil {
		return "", fmt.Errorf("save %s: %w", p.File, err)
	}
	return p.File, nil
}
