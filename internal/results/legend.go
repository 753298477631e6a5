package results

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// legendCorners are where a legend may go, in the order preferred when several are as clear.
var legendCorners = []struct{ top, left bool }{{true, true}, {true, false}, {false, false}, {false, true}}

// placeLegend puts pl's legend in the corner of the data area that the curves cross least, for a
// plot drawn on c: a fixed corner covered the highest curve of a rising figure (Fig. 9's TCP,
// whose first points sat under the legend's first lines; Fig. 10's throughput). When every corner
// is crossed, it makes room with grow (raiseTop, widenRight; nil: none), up to six times, until a
// corner is clear (the corner crossed least is taken if none is). Call it once every plotter and
// legend entry is in, so that the axes' ranges and the legend's size are final.
func placeLegend(pl *plot.Plot, c draw.Canvas, curves []plotter.XYs, grow func(*plot.Plot)) {
	placeLegendAvoiding(pl, c, curves, nil, grow)
}

// placeLegendAvoiding is placeLegend that also keeps the legend off the boxes avoid (on c's
// canvas): text such as the marks' labels along the top, which a legend over them makes
// unreadable, so that no number of curve samples elsewhere outweighs them. A top corner may also
// take the legend down below them (legendPlace.drop).
func placeLegendAvoiding(pl *plot.Plot, c draw.Canvas, curves []plotter.XYs, avoid []vg.Rectangle, grow func(*plot.Plot)) {
	fitLogAxes(pl) // the first measure of the plot: its ranges must be drawable
	best, fewest := clearestPlace(pl, c, curves, avoid)
	for grown := 0; grow != nil && fewest > 0 && grown < 6; grown++ {
		grow(pl)
		best, fewest = clearestPlace(pl, c, curves, avoid)
	}
	corner := legendCorners[best.corner]
	pl.Legend.Top, pl.Legend.Left = corner.top, corner.left
	// gonum aligns a right-hand legend's thumbnails with the canvas's edge, where half of each
	// marker is cut off; a small inset keeps them whole.
	pl.Legend.XOffs = 0
	if !pl.Legend.Left {
		pl.Legend.XOffs = -legendInset
	}
	pl.Legend.YOffs = -best.drop
}

// legendPlace is a place for a legend: a corner of legendCorners, and how far below the corner
// (a top one) it is drawn.
type legendPlace struct {
	corner int
	drop   vg.Length
}

// overAvoided is what a place over a box to avoid counts, in covered curve samples: more than any
// plot has, so that such a place is taken only where every place is over one.
const overAvoided = 1 << 30

// legendInset is how far a right-hand legend stays in from the canvas's edge: half a marker and
// a little air.
const legendInset = vg.Length(6)

// canvasOf is a canvas of w by h to place a legend on before the plot is saved at that size.
func canvasOf(w, h vg.Length) draw.Canvas { return plotArea(draw.New(vgimg.New(w, h))) }

// clearestCorner is the corner (an index of legendCorners) where the legend would cover the
// fewest samples of the curves, and that number.
func clearestCorner(pl *plot.Plot, full draw.Canvas, curves []plotter.XYs) (best, fewest int) {
	p, n := clearestPlace(pl, full, curves, nil)
	return p.corner, n
}

// clearestPlace is the place where the legend would cover the fewest samples of the curves and no
// box of avoid, and what it covers (overAvoided for each box it is over). The corners come first,
// in legendCorners' order; then, where there is something to avoid, each top corner dropped below
// it; a later place is taken only where it covers less.
func clearestPlace(pl *plot.Plot, full draw.Canvas, curves []plotter.XYs, avoid []vg.Rectangle) (best legendPlace, fewest int) {
	dc := pl.DataCanvas(full)
	lc := legendCanvas(pl, full, dc)
	box := pl.Legend.Rectangle(lc).Size()
	places := make([]legendPlace, 0, 6)
	for i := range legendCorners {
		places = append(places, legendPlace{corner: i})
	}
	if drop := belowAll(lc, avoid); drop > 0 {
		for i, c := range legendCorners {
			if c.top {
				places = append(places, legendPlace{corner: i, drop: drop})
			}
		}
	}
	fewest = -1
	for _, p := range places {
		c := legendCorners[p.corner]
		r := cornerBox(lc, box, c.top, c.left)
		r.Min.Y, r.Max.Y = r.Min.Y-p.drop, r.Max.Y-p.drop
		n := 0
		for _, xy := range curves {
			n += samplesIn(pl, dc, r, xy)
		}
		for _, a := range avoid {
			if overlaps(r, a) {
				n += overAvoided
			}
		}
		if fewest < 0 || n < fewest {
			best, fewest = p, n
		}
	}
	return best, fewest
}

// belowAll is how far below the top of c a top legend must start to be below every box of avoid
// (a little more, for air); 0 where there is none.
func belowAll(c draw.Canvas, avoid []vg.Rectangle) vg.Length {
	if len(avoid) == 0 {
		return 0
	}
	low := c.Max.Y
	for _, a := range avoid {
		low = min(low, a.Min.Y)
	}
	return max(c.Max.Y-low+vg.Points(2), 0)
}

// overlaps says whether rectangles a and b share any area.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// legendCanvas is where plot.Draw draws the legend: the area right of the y axis and above the
// x axis, up to the title, which is larger than the data area dc by the padding that keeps
// points whole at its edges.
func legendCanvas(pl *plot.Plot, full, dc draw.Canvas) draw.Canvas {
	lc := full
	lc.Min = dc.Min
	if pl.Title.Text != "" {
		lc.Max.Y -= pl.Title.TextStyle.Rectangle(pl.Title.Text).Size().Y + pl.Title.Padding
	}
	return lc
}

// raiseTop adds a sixth of the y axis's range above it, in the axis's own scale.
func raiseTop(pl *plot.Plot) { extend(&pl.Y) }

// widenRight adds a sixth of the x axis's range right of it: room for a CDF's legend, whose y axis
// ends at 1.
func widenRight(pl *plot.Plot) { extend(&pl.X) }

// extend moves a's maximum out by a sixth of its range, in the axis's own scale.
func extend(a *plot.Axis) {
	if _, log := a.Scale.(plot.LogScale); log && a.Min > 0 {
		a.Max *= math.Pow(a.Max/a.Min, 1.0/6)
		return
	}
	a.Max += (a.Max - a.Min) / 6
}

// cornerBox is the box in a corner of c that a legend of size s covers, a tenth larger each way
// so that a curve just outside it still counts.
func cornerBox(c draw.Canvas, s vg.Point, top, left bool) vg.Rectangle {
	s = vg.Point{X: s.X * 1.1, Y: s.Y * 1.1}
	r := vg.Rectangle{Min: c.Min, Max: vg.Point{X: c.Min.X + s.X, Y: c.Min.Y + s.Y}}
	if !left {
		r.Min.X, r.Max.X = c.Max.X-s.X, c.Max.X
	}
	if top {
		r.Min.Y, r.Max.Y = c.Max.Y-s.Y, c.Max.Y
	}
	return r
}

// samplesIn counts the points along xy's segments, 32 to a segment, that fall in r. A segment is
// drawn straight on the canvas, so it is sampled between its ends' normalised coordinates (on a
// log axis, between their logarithms).
func samplesIn(pl *plot.Plot, c draw.Canvas, r vg.Rectangle, xy plotter.XYs) int {
	const steps = 32
	n := 0
	in := func(nx, ny float64) {
		p := vg.Point{X: c.X(nx), Y: c.Y(ny)}
		if p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y {
			n++
		}
	}
	for i := range xy {
		bx, by := pl.X.Norm(xy[i].X), pl.Y.Norm(xy[i].Y)
		if i == 0 {
			in(bx, by)
			continue
		}
		ax, ay := pl.X.Norm(xy[i-1].X), pl.Y.Norm(xy[i-1].Y)
		for s := 1; s <= steps; s++ {
			f := float64(s) / steps
			in(ax+f*(bx-ax), ay+f*(by-ay))
		}
	}
	return n
}
