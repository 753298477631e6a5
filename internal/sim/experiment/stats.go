package experiment

import (
	"math"
	"sort"

	"github.com/qjump-net/qjump/internal/results"
)

// Flow-size classes of Fig. 9 (§6.4): small flows (0, 100 kB], large flows (10 MB, ∞).
const (
	SmallMax = 100_000
	LargeMin = 10_000_000
)

// FCTStats are the statistics the paper reports, on FCT normalised to the ideal FCT.
type FCTStats struct {
	SmallMean  float64 `json:"small_mean"`
	SmallP99   float64 `json:"small_p99"`
	LargeMean  float64 `json:"large_mean"`
	AllMean    float64 `json:"all_mean"`
	SmallFlows int     `json:"small_flows"`
	LargeFlows int     `json:"large_flows"`
	Flows      int     `json:"flows"` // finished flows counted
}

// ComputeStats computes the statistics over the finished flows (NaN where a class is empty).
func ComputeStats(rows []FlowRow) FCTStats {
	var small, large, all []float64
	for _, r := range rows {
		if !r.Done {
			continue
		}
		n := r.Normalised()
		all = append(all, n)
		switch {
		case r.Size <= SmallMax:
			small = append(small, n)
		case r.Size > LargeMin:
			large = append(large, n)
		}
	}
	return FCTStats{
		SmallMean: mean(small), SmallP99: percentile(small, 0.99), LargeMean: mean(large),
		AllMean: mean(all), SmallFlows: len(small), LargeFlows: len(large), Flows: len(all),
	}
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// percentile is the nearest-rank percentile q of v.
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return nearestRank(s, q)
}

// nearestRank is the nearest-rank percentile q of sorted, non-empty values: the smallest value
// at or below which a fraction q of them lie. Every percentile the simulator reports, a point's
// and a series', is this one, so that the p50 of a fan-in point and of its series agree.
func nearestRank(sorted []float64, q float64) float64 {
	return sorted[max(int(math.Ceil(q*float64(len(sorted))))-1, 0)]
}

// sortedStats are the statistics of sorted values (nearest-rank percentiles, as FCTStats), lost
// more samples without a value.
func sortedStats(v []float64, lost int) results.Stats {
	st := results.Stats{Samples: len(v) + lost, Lost: lost}
	if len(v) == 0 {
		return st
	}
	rank := func(q float64) float64 { return results.Round3(nearestRank(v, q)) }
	st.MeanUS = results.Round3(mean(v))
	st.P50US, st.P90US, st.P99US, st.P999US = rank(0.5), rank(0.9), rank(0.99), rank(0.999)
	st.MaxUS = results.Round3(v[len(v)-1])
	st.RMSUS = results.Round3(results.RMS(v))
	return st
}

func sortFloats(v []float64) { sort.Float64s(v) }
