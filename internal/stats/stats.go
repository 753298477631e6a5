// Package stats holds the statistics every measurement shares: the testbed's results, the
// simulator's and the benchmarks'. Quantiles and percentiles are nearest-rank, so each is a value
// that was actually measured; Median, like the mean, is not (the mean of the two middle values of
// an even count).
package stats

import (
	"math"
	"sort"
)

// Median is the middle of xs (the mean of the two middle values when len(xs) is even), or 0 for
// no values. xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := Sorted(xs)
	mid := len(s) / 2
	if len(s)%2 == 0 {
		return (s[mid-1] + s[mid]) / 2
	}
	return s[mid]
}

// Sorted is a sorted copy of xs.
func Sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// Quantile is the nearest-rank q-quantile (0 < q ≤ 1) of sorted: the smallest value with at least
// q of the values at or below it. It is 0 for no values.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of xs, which is not changed.
func Percentile(xs []float64, p float64) float64 { return Quantile(Sorted(xs), p/100) }

// Mean is the arithmetic mean of xs, or 0 for no values.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
