package results

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks marks a log axis so that it can be read whatever its range. gonum's LogTicks labels
// the powers of ten only, so an axis within one decade (a normalised FCT from 1.2 to 8, a latency
// from 20 to 90 µs) had no number on it. logTicks labels the powers of ten when the range spans
// enough of them, and otherwise the first of these series of mantissas that puts at least
// minLabels labels on the axis: 1-2-5, then 1-2-3-5, then 1-1.5-2-3-4-5-6-8, then with 1.2 and
// 2.5 as well, then about every tenth of a decade; an axis narrower than that gets its two ends.
// Every other integer mantissa gets an unlabelled (minor) tick.
type logTicks struct{}

// minLabels is how many labelled ticks an axis should carry to be read.
const minLabels = 3

// labelMantissas are the series tried in turn, sparsest first.
var labelMantissas = [][]float64{
	{1},
	{1, 2, 5},
	{1, 2, 3, 5},
	{1, 1.5, 2, 3, 4, 5, 6, 8},
	{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8},
	{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2, 2.2, 2.4, 2.6, 2.8, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9},
}

var _ plot.Ticker = logTicks{}

// Ticks returns the ticks within [min, max] (both above 0, as a log axis is).
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	var labels []float64
	for _, m := range labelMantissas {
		labels = decadeValues(min, max, m)
		if len(labels) >= minLabels {
			break
		}
	}
	if len(labels) < 2 {
		// Narrower than any series labels twice (1.01 to 1.05): the ends, to three digits.
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 3, 64)}, {Value: max, Label: strconv.FormatFloat(max, 'g', 3, 64)}}
	}
	labelled := map[float64]bool{}
	var ticks []plot.Tick
	for _, v := range labels {
		labelled[v] = true
		ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v)})
	}
	for _, v := range decadeValues(min, max, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		if !labelled[v] {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// decadeValues are the values m·10^k within [min, max], for every mantissa m and decade k, in
// increasing order. A value is parsed from its decimal form, so that 3·10^-1 is 0.3 exactly as
// the label prints it (and as the same value of another series is).
func decadeValues(min, max float64, mantissas []float64) []float64 {
	var out []float64
	for k := int(math.Floor(math.Log10(min))); k <= int(math.Ceil(math.Log10(max))); k++ {
		for _, m := range mantissas {
			v, err := strconv.ParseFloat(strconv.FormatFloat(m, 'f', -1, 64)+"e"+strconv.Itoa(k), 64)
			if err == nil && v >= min && v <= max {
				out = append(out, v)
			}
		}
	}
	return out
}

// tickLabel prints v as a reader writes it: 0.05, 2, 1.5, 300, 20000; powers of ten from a
// million up, and below a thousandth, as 1e+06 and 1e-04.
func tickLabel(v float64) string {
	if v >= 1e6 || v < 1e-3 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// linTicks marks a linear axis at the widest step of 1, 2 or 5 times a power of ten that puts at
// least minLabels labels on it, each printed as a reader writes it: 0, 10,
// 20, 30 or 0, 2, 4, 6 for a time axis in seconds, where gonum's default printed 0.00, 25.00
// (two labels) and 0.00, 2.50, 5.00. Half steps get an unlabelled tick.
type linTicks struct{}

var _ plot.Ticker = linTicks{}

// Ticks returns the ticks within [min, max].
func (linTicks) Ticks(min, max float64) []plot.Tick {
	span := max - min
	if !(span > 0) || math.IsInf(span, 0) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	top := int(math.Floor(math.Log10(span)))
	for k := top; k >= top-3; k-- {
		for _, m := range []float64{5, 2, 1} {
			step := m * math.Pow(10, float64(k))
			first := math.Ceil(min/step - 1e-9)
			last := math.Floor(max/step + 1e-9)
			if last-first+1 < minLabels {
				continue
			}
			scale := 1.0 // rounds a value to the step's decimals: 0.30000000000000004 is 0.3
			if k < 0 {
				scale = math.Pow(10, float64(-k))
			}
			var ticks []plot.Tick
			for i := first; i <= last; i++ {
				v := i * step
				if v == 0 {
					v = 0 // not -0, which prints "-0"
				}
				v = math.Round(v*scale) / scale
				ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v)})
				if h := v + step/2; h <= max {
					ticks = append(ticks, plot.Tick{Value: h})
				}
			}
			if h := first*step - step/2; h >= min {
				ticks = append(ticks, plot.Tick{Value: h})
			}
			return ticks
		}
	}
	return plot.DefaultTicks{}.Ticks(min, max)
}
