package results

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SweepPlot draws latency percentiles and the maximum of series against their swept parameter, on
// a log latency axis, beside a model's bound, as the paper's Fig. 11 does: with a horizontal floor
// (the idle network's own maximum) and a vertical line where the maximum first exceeds the bound.
// A point that lost samples is ringed and labelled with the share lost (addLosses).
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
	Samples    string // what a sample is, for the legend of the lost ones: "probes" ("" reads "samples")
	// Regions are the parameters where the paper's regions end, in order (Fig. 11: f7 = 1, where
	// the guarantee's region A ends, and m, where B ends): the regions after the first are shaded
	// and named in the legend. None: no regions drawn.
	Regions []float64
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
	bands := p.bands()
	pl.Add(bands, plotter.NewGrid()) // first: beneath the curves
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
	if lossy, err := p.addLosses(pl, curves); err != nil {
		return "", err
	} else if lossy != nil {
		curves = append(curves, lossy)
	}
	fitSingleX(pl) // a sweep stopped after its first point
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
	bands.addLegend(pl)
	placeLegend(pl, canvasOf(w, h), curves, raiseTop)
	if over != nil {
		over.XYs[1].Y = pl.Y.Max
	}
	if err := savePlot(pl, w, h, filepath.Join(dir, p.File)); err != nil {
		return "", fmt.Errorf("save %s: %w", p.File, err)
	}
	return p.File, nil
}

// regionBands shades the regions after the first (Fig. 11's B and C) across the data area's
// height, beneath the grid and the curves: drawn under the data, a region's mark never covers
// it, as letters over the plot did (review, helper-100). It has no data range of its own, so it
// neither widens the axes nor moves the legend. Band i runs from edges[i] to edges[i+1], the
// last one on without end.
type regionBands struct {
	edges []float64 // SweepPlot.Regions
	param string    // the swept parameter's name, for the legend
}

// regionShades are the bands' greys, lighter for the nearer region.
var regionShades = []color.Color{color.Gray{Y: 232}, color.Gray{Y: 212}, color.Gray{Y: 196}}

// bands are p's regions after the first, to shade (A, before the first boundary, is unshaded).
func (p SweepPlot) bands() regionBands { return regionBands{edges: p.Regions, param: p.Param} }

// span is band i's x span; to is +Inf for the last.
func (b regionBands) span(i int) (from, to float64) {
	if i+1 < len(b.edges) {
		return b.edges[i], b.edges[i+1]
	}
	return b.edges[i], math.Inf(1)
}

// shade is band i's grey.
func (b regionBands) shade(i int) color.Color { return regionShades[min(i, len(regionShades)-1)] }

// addLegend names each band that pl's x axis shows in the legend.
func (b regionBands) addLegend(pl *plot.Plot) {
	for i := range b.edges {
		from, to := b.span(i)
		if to <= math.Max(from, pl.X.Min) || from >= pl.X.Max {
			continue // nothing of it is drawn (review, helper-102)
		}
		label := fmt.Sprintf("region %c: %g < %s ≤ %g", 'B'+i, from, b.param, to)
		if math.IsInf(to, 1) {
			label = fmt.Sprintf("region %c: %s > %g", 'B'+i, b.param, from)
		}
		pl.Legend.Add(label, regionThumb{b.shade(i)})
	}
}

// Plot fills each band, clipped to the data area.
func (b regionBands) Plot(c draw.Canvas, pl *plot.Plot) {
	trX, _ := pl.Transforms(&c)
	for i := range b.edges {
		from, to := b.span(i)
		lo, hi := trX(math.Max(from, pl.X.Min)), c.Max.X
		if to < pl.X.Max {
			hi = trX(to)
		}
		if hi <= lo {
			continue
		}
		c.SetColor(b.shade(i))
		c.Fill(vg.Rectangle{Min: vg.Point{X: lo, Y: c.Min.Y}, Max: vg.Point{X: hi, Y: c.Max.Y}}.Path())
	}
}

// regionThumb is a band's swatch in the legend.
type regionThumb struct{ shade color.Color }

func (t regionThumb) Thumbnail(c *draw.Canvas) {
	c.SetColor(t.shade)
	c.Fill(c.Rectangle.Path())
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

// lossColor marks lost samples: black, apart from every curve's colour.
var lossColor = color.Black

// addLosses rings every point that lost samples (lossMarks) and labels it with the share lost, and
// returns the rings' places for the legend to keep clear of, nil when no point lost anything.
func (p SweepPlot) addLosses(pl *plot.Plot, curves []plotter.XYs) (plotter.XYs, error) {
	floor := math.Inf(1)
	for _, xys := range curves {
		for _, xy := range xys {
			floor = math.Min(floor, xy.Y)
		}
	}
	at, labels := lossMarks(p.Points, floor)
	if len(at) == 0 {
		return nil, nil
	}
	rings, err := plotter.NewScatter(at)
	if err != nil {
		return nil, err
	}
	rings.GlyphStyle = draw.GlyphStyle{Color: lossColor, Radius: vg.Points(5), Shape: boldRing{}}
	text, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range text.TextStyle {
		text.TextStyle[i].Font.Size = vg.Points(8)
		text.TextStyle[i].Color = lossColor
		text.TextStyle[i].XAlign = draw.XCenter
	}
	text.Offset = vg.Point{Y: vg.Points(7)} // above the ring
	pl.Add(rings, haloLabels{text})
	samples := p.Samples
	if samples == "" {
		samples = "samples"
	}
	pl.Legend.Add(fmt.Sprintf("%s lost, %% of sent (curves: the delivered)", samples), rings)
	return at, nil
}

// haloLabels draws labels on white, so that one on a curve or a grid line (a bound passing just
// above a ring) stays legible.
type haloLabels struct{ *plotter.Labels }

func (l haloLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pad := vg.Points(1)
	for i, label := range l.Labels.Labels {
		pt := vg.Point{X: trX(l.XYs[i].X), Y: trY(l.XYs[i].Y)}
		if !c.Contains(pt) {
			continue
		}
		pt = pt.Add(l.Offset)
		box := l.TextStyle[i].Rectangle(label).Add(pt)
		box.Min, box.Max = box.Min.Sub(vg.Point{X: pad, Y: pad}), box.Max.Add(vg.Point{X: pad, Y: pad})
		c.SetColor(color.White)
		c.Fill(box.Path())
		c.FillText(l.TextStyle[i], pt, label)
	}
}

// lossMarks is where to ring the points of pts that lost samples, and their labels. The curves
// are of the delivered samples alone, so without a ring a point whose switch dropped a third of
// its probes draws a maximum as low as a clean point's: the ring sits on its maximum. A point that
// lost every sample draws no point at all, and its neighbours' lines run straight across it: its
// ring sits at floor, the bottom of the curves, labelled "all lost".
func lossMarks(pts []Series, floor float64) (plotter.XYs, []string) {
	var at plotter.XYs
	var labels []string
	for _, s := range pts {
		if s.Lost <= 0 {
			continue
		}
		y, label := floor, "all lost"
		if !s.Empty() {
			y, label = max(s.MaxUS, 1), lostShare(s.Lost, s.Samples)
		}
		at = append(at, plotter.XY{X: s.Param, Y: y})
		labels = append(labels, label)
	}
	return at, labels
}

// lostShare is lost of samples as a percentage with two significant digits, and never rounded
// to 0 % or 100 %, which would say that nothing or everything was lost: "8.4%", "48%", "0.0012%".
func lostShare(lost, samples int) string {
	pct := 100 * float64(lost) / float64(samples)
	decimals := max(0, 1-int(math.Floor(math.Log10(pct))))
	s := strconv.FormatFloat(pct, 'f', decimals, 64)
	for lost < samples && decimals < 9 {
		if v, _ := strconv.ParseFloat(s, 64); v < 100 {
			break
		}
		decimals++
		s = strconv.FormatFloat(pct, 'f', decimals, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "%"
}

// boldRing is draw.RingGlyph three times as thick, to stand out on the curves it rings.
type boldRing struct{}

func (boldRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)})
	var ring vg.Path
	ring.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	ring.Arc(pt, sty.Radius, 0, 2*math.Pi)
	ring.Close()
	c.Stroke(ring)
}
