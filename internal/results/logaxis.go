package results

import (
	"math"

	"gonum.org/v1/plot"
)

// fitLogAxes gives each log axis of pl a range a log scale can draw. gonum widens a range of one
// value by ±1, and a log axis has no 0: a Fig. 9 panel whose every point was the ideal, 1, became
// 0 to 2 and gonum panicked ("Values must be greater than 0 for a log scale"). Call it once every
// plotter is in, before anything measures the plot (a legend's place, plot.Align, saving).
func fitLogAxes(pl *plot.Plot) {
	fitLogAxis(&pl.X)
	fitLogAxis(&pl.Y)
}

// fitLogAxis leaves a linear axis alone. A log axis with no positive, finite data (none drawn)
// gets 1 to 10; one whose data reach 0 or below starts a decade under its maximum (such points
// cannot be drawn on it and are kept out by the plots); one of a single value v spans v/2 to 2v,
// which the log ticks label 0.5v, v, 2v when v is a power of ten.
func fitLogAxis(a *plot.Axis) {
	if _, log := a.Scale.(plot.LogScale); !log {
		return
	}
	if !(a.Max > 0) || math.IsInf(a.Max, 0) {
		a.Min, a.Max = 1, 10
		return
	}
	if !(a.Min > 0) {
		a.Min = a.Max / 10
	}
	if a.Min >= a.Max {
		v := a.Max
		a.Min, a.Max = v/2, 2*v
	}
}
