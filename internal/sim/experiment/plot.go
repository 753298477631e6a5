package experiment

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var schemeColor = map[Scheme]color.Color{
	TCP:     color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	DCTCP:   color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	PFabric: color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	QJump:   color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

// fig9Panels are the six panels of Fig. 9: per workload, small flows average and 99th
// percentile, large flows average.
var fig9Panels = []struct {
	name, workload, title string
	stat                  func(FCTStats) float64
}{
	{"fig9a", "websearch", "web search: (0, 100kB] average", func(s FCTStats) float64 { return s.SmallMean }},
	{"fig9b", "websearch", "web search: (0, 100kB] 99th percentile", func(s FCTStats) float64 { return s.SmallP99 }},
	{"fig9c", "websearch", "web search: (10MB, ∞) average", func(s FCTStats) float64 { return s.LargeMean }},
	{"fig9d", "datamining", "data mining: (0, 100kB] average", func(s FCTStats) float64 { return s.SmallMean }},
	{"fig9e", "datamining", "data mining: (0, 100kB] 99th percentile", func(s FCTStats) float64 { return s.SmallP99 }},
	{"fig9f", "datamining", "data mining: (10MB, ∞) average", func(s FCTStats) float64 { return s.LargeMean }},
}

// PlotFig9 draws the six panels into dir as PNG, normalised FCT on a log axis against load.
func PlotFig9(dir string, r *Fig9Result) ([]string, error) {
	var files []string
	for _, panel := range fig9Panels {
		p := plot.New()
		p.Title.Text = panel.title
		p.X.Label.Text = "load"
		p.Y.Label.Text = "normalised FCT"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		for _, s := range r.Config.Schemes {
			var xy plotter.XYs
			for _, pt := range r.Points {
				if pt.Scheme == s && pt.Workload == panel.workload {
					if v := panel.stat(pt.Stats); !math.IsNaN(v) && v > 0 {
						xy = append(xy, plotter.XY{X: pt.Load, Y: v})
					}
				}
			}
			if len(xy) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, fmt.Errorf("plot %s: %w", panel.name, err)
			}
			line.Color, points.Color = schemeColor[s], schemeColor[s]
			p.Add(line, points)
			p.Legend.Add(string(s), line, points)
		}
		p.Legend.Top, p.Legend.Left = true, true
		file := filepath.Join(dir, panel.name+".png")
		if err := p.Save(5*vg.Inch, 3.5*vg.Inch, file); err != nil {
			return nil, fmt.Errorf("save %s: %w", file, err)
		}
		files = append(files, file)
	}
	return files, nil
}

// PlotFanIn draws the worst and 99th-percentile queueing latency of level-7 packets against f7
// with the model's bound, and marks regions A, B and C.
func PlotFanIn(file string, r *FanInResult, m int) error {
	p := plot.New()
	epochs := "random epoch phases"
	if r.Aligned {
		epochs = "aligned epochs"
	}
	p.Title.Text = fmt.Sprintf("fan-in of %d hosts, %s (A: f7 ≤ 1, B: ≤ m=%d, C: beyond)", r.Hosts, epochs, m)
	p.X.Label.Text = "f7"
	p.Y.Label.Text = "latency over the idle path [µs]"
	var maxXY, p99XY, boundXY plotter.XYs
	for _, pt := range r.Points {
		maxXY = append(maxXY, plotter.XY{X: pt.F7, Y: pt.MaxUs})
		p99XY = append(p99XY, plotter.XY{X: pt.F7, Y: pt.P99Us})
		if pt.Guaranteed {
			boundXY = append(boundXY, plotter.XY{X: pt.F7, Y: pt.BoundUs})
		}
	}
	for _, s := range []struct {
		name string
		xy   plotter.XYs
		c    color.Color
	}{{"max", maxXY, schemeColor[QJump]}, {"p99", p99XY, schemeColor[TCP]}, {"model bound", boundXY, color.Black}} {
		if len(s.xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return fmt.Errorf("plot fan-in: %w", err)
		}
		l.Color = s.c
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	for _, x := range []float64{1, float64(m)} {
		v, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: p.Y.Max}})
		if err == nil {
			v.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
			p.Add(v)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	if err := p.Save(6*vg.Inch, 4*vg.Inch, file); err != nil {
		return fmt.Errorf("save %s: %w", file, err)
	}
	return nil
}
