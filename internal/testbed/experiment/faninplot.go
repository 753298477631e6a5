package experiment

import (
	"fmt"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// fanInPlots draws Fig. 11: latency percentiles and the maximum of the QJump arms against f7, the
// model's bound, and a vertical line where the maximum first exceeds it (the end of region A).
func fanInPlots(r *Results, _ []Row, dir string) ([]string, error) {
	var pts []Series
	for _, s := range r.Series {
		if armHasQJump(r, s.Arm) && s.Metric == "network" {
			pts = append(pts, s)
		}
	}
	if len(pts) == 0 {
		return nil, nil
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].Param < pts[j].Param })
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Fig. 11: level-7 network latency under fan-in (%d hosts, R=%.0f Mb/s)", r.Model.Hosts, r.Model.RateBPS/1e6)
	p.X.Label.Text = "f7 (packets per epoch per host)"
	p.Y.Label.Text = "kernel tx → rx latency (µs)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	lines := []struct {
		label string
		get   func(Series) float64
	}{
		{"p50", func(s Series) float64 { return s.P50US }},
		{"p99", func(s Series) float64 { return s.P99US }},
		{"max", func(s Series) float64 { return s.MaxUS }},
		{"model bound D7", func(s Series) float64 { return fanInBoundUS(r, s.Param) }},
	}
	for i, l := range lines {
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
		if l.label == "model bound D7" {
			line.Color, points.Color = boundColor, boundColor
			line.Dashes = plotutil.Dashes(2)
			line.Width = vg.Points(2)
		}
		p.Add(line, points)
		p.Legend.Add(l.label, line, points)
	}
	if noise, ok := r.series("noise", "probe", "network"); ok {
		v := plotter.XYs{{X: pts[0].Param, Y: max(noise.MaxUS, 1)}, {X: pts[len(pts)-1].Param, Y: max(noise.MaxUS, 1)}}
		if line, err := plotter.NewLine(v); err == nil {
			line.Color = plotutil.Color(5)
			line.Dashes = plotutil.Dashes(3)
			p.Add(line)
			p.Legend.Add("idle noise floor (max)", line)
		}
	}
	if f7, ok := firstViolation(r, pts); ok {
		v := plotter.XYs{{X: f7, Y: 1}, {X: f7, Y: p.Y.Max}}
		line, err := plotter.NewLine(v)
		if err == nil {
			line.Dashes = plotutil.Dashes(1)
			p.Add(line)
			p.Legend.Add(fmt.Sprintf("max first exceeds bound (f7=%g)", f7), line)
		}
	}
	file := "fig11-fan-in.png"
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, file)); err != nil {
		return nil, fmt.Errorf("save %s: %w", file, err)
	}
	return []string{file}, nil
}

// firstViolation is the smallest f7 whose maximum latency exceeds the model's bound.
func firstViolation(r *Results, pts []Series) (float64, bool) {
	for _, s := range pts {
		if s.MaxUS > fanInBoundUS(r, s.Param) {
			return s.Param, true
		}
	}
	return 0, false
}
