package experiment

import (
	"fmt"
	"image/color"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// cdfCurve is one line of a latency CDF plot.
type cdfCurve struct {
	label string
	rows  []Row
}

// plotCDF draws latency CDFs on a log time axis, as the paper's Fig. 3 does.
func plotCDF(path, title, xlabel string, curves []cdfCurve) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "CDF"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	for i, c := range curves {
		v := latenciesUS(c.rows)
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
	}
	if err := p.Save(7*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}

// rowsWhere picks rows of one arm, tool and metric.
func rowsWhere(rows []Row, arm, tool, metric string) []Row {
	var out []Row
	for _, r := range rows {
		if r.Arm == arm && r.Tool == tool && r.Metric == metric {
			out = append(out, r)
		}
	}
	return out
}

// armCDFs plots, for each (tool, metric), the CDF of the given arms that have samples.
func armCDFs(r *Results, rows []Row, dir, file, title string, arms []string, tool, metric, xlabel string) (string, error) {
	var curves []cdfCurve
	for _, a := range arms {
		if rs := rowsWhere(rows, a, tool, metric); len(rs) > 0 {
			curves = append(curves, cdfCurve{label: a, rows: rs})
		}
	}
	if len(curves) == 0 {
		return "", nil
	}
	if err := plotCDF(filepath.Join(dir, file), title, xlabel, curves); err != nil {
		return "", err
	}
	return file, nil
}

var boundColor = color.RGBA{R: 200, A: 255}

func pingIperfPlots(r *Results, rows []Row, dir string) ([]string, error) {
	var files []string
	for _, p := range []struct{ file, tool, metric, title string }{
		{"fig3a-probe-oneway.png", "probe", "oneway", "Fig. 3a: probe one-way latency, h1→h2 (kernel timestamps)"},
		{"fig3a-ping-rtt.png", "ping", "rtt", "Fig. 3a: ping round trip, h1→h2"},
	} {
		f, err := armCDFs(r, rows, dir, p.file, p.title, []string{"idle", "switch-queue", "qjump"}, p.tool, p.metric, "latency (µs)")
		if err != nil {
			return nil, err
		}
		if f != "" {
			files = append(files, f)
		}
	}
	var all []string
	for _, a := range r.Arms {
		all = append(all, a.Name)
	}
	f, err := armCDFs(r, rows, dir, "table1-probe-rtt.png", "Table 1 arms: probe round trip", all, "probe", "rtt", "latency (µs)")
	if err != nil {
		return nil, err
	}
	if f != "" {
		files = append(files, f)
	}
	return files, nil
}
