package results

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// XY is one point of a line.
type XY struct{ X, Y float64 }

// Line is one curve of a LinePlot. A model's figure (a bound, a cap) is Model: drawn dashed in
// the bound colour, as SweepPlot draws its bound.
type Line struct {
	Label  string
	Points []XY
	Model  bool
	Dots   bool // points only, no line: a timeline of samples
	// Unjoined draws the points with the line's markers and no line between them: points that
	// are not neighbours in the sweep they come from (a quick run's ratios 0 and 4 of a sweep
	// 0, 0.5, 1, 2, 3, 4), between which a line would draw values that were never measured.
	Unjoined bool
}

// LinePlot is curves against one x axis: throughput against a factor (Fig. 10), a rate against
// the interference ratio (Fig. 6), a sample's value against time (Fig. 5).
type LinePlot struct {
	Title, XLabel, YLabel string
	LogY                  bool
	Lines                 []Line
	Marks                 []Mark // vertical lines: phase boundaries
}

// Mark is a labelled vertical line at X.
type Mark struct {
	X     float64
	Label string
}

func (p LinePlot) empty() bool {
	for _, l := range p.Lines {
		if len(l.Points) > 0 {
			return false
		}
	}
	return true
}

// Draw writes the plot to dir/file and returns file, or "" when no line has a point.
func (p LinePlot) Draw(dir, file string) (string, error) {
	if p.empty() {
		return "", nil
	}
	pl, curves, err := p.plot()
	if err != nil {
		return "", err
	}
	w, h := 7*vg.Inch, 4.5*vg.Inch
	placeLegend(pl, canvasOf(w, h), curves, raiseTop)
	p.addMarks(pl) // across the y range as the legend left it
	if err := savePlot(pl, w, h, filepath.Join(dir, file)); err != nil {
		return "", fmt.Errorf("save %s: %w", file, err)
	}
	return file, nil
}

// plot builds the plot without its marks and returns it with the points of its lines, which its
// legend keeps clear of (the marks span the axis's height, so they are drawn once it is final).
func (p LinePlot) plot() (*plot.Plot, []plotter.XYs, error) {
	pl := plot.New()
	pl.Title.Text, pl.X.Label.Text, pl.Y.Label.Text = p.Title, p.XLabel, p.YLabel
	pl.X.Tick.Marker = linTicks{}
	pl.Y.Tick.Marker = linTicks{}
	if p.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicks{}
	}
	pl.Add(plotter.NewGrid())
	var curves []plotter.XYs
	for i, l := range p.Lines {
		if len(l.Points) == 0 {
			continue
		}
		xy, err := p.addLine(pl, i, l)
		if err != nil {
			return nil, nil, err
		}
		curves = append(curves, xy)
	}
	fitLogAxes(pl) // before a stack's marks and plot.Align measure it
	fitSingleX(pl)
	if !p.LogY && pl.Y.Min > 0 {
		// A linear axis of what cannot be negative (a rate) is read from 0: from its lowest
		// point, a rate that fell to a fifth looks like one that fell to nothing, and gonum's
		// ticks left 0 without a label (Fig. 6 read 400, 1200, 2000).
		pl.Y.Min = 0
	}
	return pl, curves, nil
}

// fitSingleX gives an x axis whose points all have one x (a sweep stopped after its first load)
// a range around that x, not below 0 where the x is not: gonum pads such a range by one unit each
// side, which drew loads from -0.75 to 1.25 (review, helper-71). Every drawer of points over a
// parameter calls it: LinePlot, ParamPlot (Fig. 9's panels) and SweepPlot (fan-in's).
func fitSingleX(pl *plot.Plot) {
	if pl.X.Min != pl.X.Max {
		return
	}
	x := pl.X.Min
	pad := math.Abs(x) / 2
	if pad == 0 {
		pad = 1
	}
	pl.X.Min, pl.X.Max = x-pad, x+pad
	if x >= 0 {
		pl.X.Min = max(pl.X.Min, 0)
	}
}

// addLine draws l and returns its points as drawn.
func (p LinePlot) addLine(pl *plot.Plot, i int, l Line) (plotter.XYs, error) {
	xy := make(plotter.XYs, len(l.Points))
	for j, pt := range l.Points {
		y := pt.Y
		if p.LogY {
			y = max(y, 1e-3) // a log axis has no 0
		}
		xy[j] = plotter.XY{X: pt.X, Y: y}
	}
	c := plotutil.Color(i)
	if l.Model {
		c = boundColor
	}
	if l.Dots || l.Unjoined {
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", l.Label, err)
		}
		s.Color, s.Radius, s.Shape = c, vg.Points(1), draw.CircleGlyph{}
		if l.Unjoined {
			s.Radius, s.Shape = vg.Points(4), plotutil.Shape(i)
		}
		pl.Add(s)
		pl.Legend.Add(l.Label, s)
		return xy, nil
	}
	line, points, err := plotter.NewLinePoints(xy)
	if err != nil {
		return nil, fmt.Errorf("plot %s: %w", l.Label, err)
	}
	line.Color, points.Color, points.Shape = c, c, plotutil.Shape(i)
	if l.Model {
		line.Dashes, line.Width = plotutil.Dashes(2), vg.Points(2)
	}
	pl.Add(line, points)
	pl.Legend.Add(l.Label, line, points)
	return xy, nil
}

// addMarks draws each mark across the data's y range once the lines are in (so that range is
// known).
func (p LinePlot) addMarks(pl *plot.Plot) {
	lo, hi := pl.Y.Min, pl.Y.Max
	if p.LogY {
		lo = max(lo, 1e-3)
	}
	for _, m := range p.Marks {
		line, err := plotter.NewLine(plotter.XYs{{X: m.X, Y: lo}, {X: m.X, Y: hi}})
		if err != nil {
			continue
		}
		line.Dashes = plotutil.Dashes(1)
		pl.Add(line)
		if m.Label != "" {
			if l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: m.X, Y: hi}}, Labels: []string{" " + m.Label}}); err == nil {
				pl.Add(l)
			}
		}
	}
}

// Stack is panels drawn one above the other in one PNG, as the paper's Fig. 5 stacks its
// conditions or its applications over one time axis.
type Stack struct {
	File   string
	Panels []LinePlot
	SameY  bool // one y range for every panel, so that the conditions compare at a glance
}

// Draw writes the stack to dir and returns its file name, or "" when every panel is empty.
func (s Stack) Draw(dir string) (string, error) {
	panels, plots, curves, err := s.plots()
	if err != nil || len(panels) == 0 {
		return "", err
	}
	h := vg.Length(len(panels)) * 3 * vg.Inch
	img := vgimg.New(8*vg.Inch, h)
	dc := draw.New(img)
	// PadRight: the panels' last x is their data's, and its markers, drawn around it, were cut
	// in half by the image's edge (Fig. 10's largest factor): the single plots' margin.
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadRight: plotRightMargin, PadX: vg.Points(4), PadY: vg.Points(8)}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		placePanelLegend(panels[i], plots[i][0], canvases[i][0], curves[i])
		plots[i][0].Draw(canvases[i][0])
	}
	if err := savePNG(img, filepath.Join(dir, s.File)); err != nil {
		return "", err
	}
	return s.File, nil
}

// placePanelLegend puts the legend of a stack's panel p, drawn as pl on c, in a corner. The axes
// are aligned already: the legend takes a corner but does not move an axis. It never covers the
// marks' labels along the top, whatever the curves (it sat on "alone", and then, when the labels
// were only curves to cross as few of as it could, on "qjump": the samples of a timeline outweighed
// them), and goes below them where the curves fill the bottom corners.
func placePanelLegend(p LinePlot, pl *plot.Plot, c draw.Canvas, curves []plotter.XYs) {
	placeLegendAvoiding(pl, c, curves, markLabelBoxes(p, pl, c), nil)
}

// plots is the stack's panels that have data, each as a plot (a row of one, as plot.Align takes
// them) with its marks and its curves, on one x range (and one y range with SameY).
func (s Stack) plots() (panels []LinePlot, plots [][]*plot.Plot, curves [][]plotter.XYs, err error) {
	for _, p := range s.Panels {
		if !p.empty() {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return nil, nil, nil, nil
	}
	plots = make([][]*plot.Plot, len(panels))
	curves = make([][]plotter.XYs, len(panels))
	for i, p := range panels {
		pl, xy, err := p.plot()
		if err != nil {
			return nil, nil, nil, err
		}
		p.addMarks(pl)
		plots[i], curves[i] = []*plot.Plot{pl}, xy
	}
	if s.SameY {
		sameY(plots)
	}
	sameX(plots)
	return panels, plots, curves, nil
}

// Bars is one bar per label: the paper's Fig. 7, a figure per condition normalised to the ideal.
type Bars struct {
	File, Title, YLabel string
	Labels              []string
	Values              []float64
}

// Draw writes the chart to dir and returns its file name, or "" when there are no values.
func (b Bars) Draw(dir string) (string, error) {
	if len(b.Values) == 0 {
		return "", nil
	}
	pl := plot.New()
	pl.Title.Text, pl.Y.Label.Text = b.Title, b.YLabel
	vals := plotter.Values(b.Values)
	bars, err := plotter.NewBarChart(vals, vg.Points(30))
	if err != nil {
		return "", fmt.Errorf("plot %s: %w", b.File, err)
	}
	bars.Color = plotutil.Color(0)
	pl.Add(plotter.NewGrid(), bars)
	pl.NominalX(b.Labels...)
	// Each bar's value above it, centred: the ratios span orders of magnitude on a linear axis.
	xy := make(plotter.XYs, len(b.Values))
	text := make([]string, len(b.Values))
	for i, v := range b.Values {
		xy[i], text[i] = plotter.XY{X: float64(i), Y: v}, fmt.Sprintf("%.3g", v)
	}
	if l, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: text}); err == nil {
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign = draw.XCenter
		}
		l.Offset = vg.Point{Y: vg.Points(2)}
		pl.Add(l)
	}
	b.frame(pl)
	if err := savePlot(pl, 6*vg.Inch, 4*vg.Inch, filepath.Join(dir, b.File)); err != nil {
		return "", fmt.Errorf("save %s: %w", b.File, err)
	}
	return b.File, nil
}

// frame gives the bars room inside the axes: half a slot beyond the outermost bars, which sat
// against the frame (gonum's range ends at their centres, padded by half a bar's width only), and
// a sixth of the tallest bar above it for its value's label, which ran into the frame; from 0,
// where a bar starts.
func (b Bars) frame(pl *plot.Plot) {
	pl.X.Min, pl.X.Max = -0.5, float64(len(b.Values))-0.5
	pl.Y.Min = min(pl.Y.Min, 0)
	pl.Y.Max = max(pl.Y.Max, slices.Max(b.Values)*7/6)
}

// sameX gives every panel of a stack the x range of all of them: they share one axis (a time
// line across phases, a factor), so that one x is one place in every panel. Each kept its own,
// and gonum labelled the same time axis 0, 10, 20, 30 above and 0.00, 25.00 below.
func sameX(plots [][]*plot.Plot) {
	lo, hi := plots[0][0].X.Min, plots[0][0].X.Max
	for _, row := range plots {
		lo, hi = min(lo, row[0].X.Min), max(hi, row[0].X.Max)
	}
	for _, row := range plots {
		row[0].X.Min, row[0].X.Max = lo, hi
	}
}

// markLabelBoxes are the boxes the marks' labels take along the top of pl drawn on c, on c's
// canvas: each from its mark, standing on the top of the data area (as addMarks draws it at the
// axis's maximum, aligned left and bottom), as wide and tall as its text.
func markLabelBoxes(p LinePlot, pl *plot.Plot, c draw.Canvas) []vg.Rectangle {
	dc := pl.DataCanvas(c)
	var out []vg.Rectangle
	for _, m := range p.Marks {
		if m.Label == "" || pl.X.Max <= pl.X.Min {
			continue
		}
		size := pl.Legend.TextStyle.Rectangle(" " + m.Label).Size()
		x := dc.X(pl.X.Norm(m.X))
		out = append(out, vg.Rectangle{Min: vg.Point{X: x, Y: dc.Max.Y}, Max: vg.Point{X: x + size.X, Y: dc.Max.Y + size.Y}})
	}
	return out
}

func sameY(plots [][]*plot.Plot) {
	lo, hi := plots[0][0].Y.Min, plots[0][0].Y.Max
	for _, row := range plots {
		lo, hi = min(lo, row[0].Y.Min), max(hi, row[0].Y.Max)
	}
	for _, row := range plots {
		row[0].Y.Min, row[0].Y.Max = lo, hi
	}
}

func savePNG(img *vgimg.Canvas, path string) error {
	return WriteFileAtomic(path, func(f io.Writer) error {
		_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f)
		return err
	})
}
