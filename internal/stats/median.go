// Package stats holds the small statistics the benchmarks share.
package stats

import "sort"

// Median is the middle of xs (the mean of the two middle values when len(xs) is even), or 0 for
// no values. xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	mid := len(s) / 2
	if len(s)%2 == 0 {
		return (s[mid-1] + s[mid]) / 2
	}
	return s[mid]
}
