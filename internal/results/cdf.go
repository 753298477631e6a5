package results

import (
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// CDFPlot is a plot of latency CDFs, one curve per arm, of one tool and metric, on a log time axis
// as the paper's Fig. 3 draws them.
type CDFPlot struct {
	File   string   // PNG file name in the output directory
	Title  string   // plot title
	XLabel string   // the latency axis
	Arms   []string // one curve each, in this order; an arm without rows has none
	Tool   string
	Metric string
}

// cdfCurve is one line of a latency CDF plot.
type cdfCurve struct {
	label string
	rows  []Row
}

// Draw writes the plot into dir and returns its file name, or "" when no arm has a delivered
// sample. An arm whose samples were all lost has no curve.
func (c CDFPlot) Draw(rows []Row, dir string) (string, error) {
	var curves []cdfCurve
	for _, a := range c.Arms {
		if rs := Where(rows, Key{Arm: a, Tool: c.Tool, Metric: c.Metric}); len(LatenciesUS(rs)) > 0 {
			curves = append(curves, cdfCurve{label: a, rows: rs})
		}
	}
	if len(curves) == 0 {
		return "", nil
	}
	if err := plotCDF(filepath.Join(dir, c.File), c.Title, c.XLabel, curves); err != nil {
		return "", err
	}
	return c.File, nil
}

// DrawCDFs draws each plot that has rows and returns the files written.
func DrawCDFs(rows []Row, dir string, plots ...CDFPlot) ([]string, error) {
	var files []string
	for _, p := range plots {
		f, err := p.Draw(rows, dir)
		if err != nil {
			return nil, err
		}
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

func plotCDF(path, title, xlabel string, curves []cdfCurve) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "CDF"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	var drawn []plotter.XYs
	for i, c := range curves {
		v := LatenciesUS(c.rows)
		if len(v) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(v))
		for j, x := range v {
			pts[j] = plotter.XY{X: max(x, 1), Y: float64(j+1) / float64(len(v))}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", c.label, err)
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(c.label, line)
		drawn = append(drawn, pts)
	}
	// A CDF's y axis ends at 1: room for the legend is made on the right.
	w, h := 7*vg.Inch, 4*vg.Inch
	placeLegend(p, canvasOf(w, h), drawn, widenRight)
	if err := savePlot(p, w, h, path); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}
