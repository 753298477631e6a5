package experiment

import (
	"math"
	"sort"
)

// Stats summarises one series of latency samples, in microseconds.
type Stats struct {
	Samples int     `json:"samples"`
	Lost    int     `json:"lost"`
	MeanUS  float64 `json:"mean_us"`
	P50US   float64 `json:"p50_us"`
	P90US   float64 `json:"p90_us"`
	P99US   float64 `json:"p99_us"`
	P999US  float64 `json:"p999_us"`
	MaxUS   float64 `json:"max_us"`
}

// latenciesUS returns the delivered samples of rows in µs, sorted.
func latenciesUS(rows []Row) []float64 {
	var v []float64
	for _, r := range rows {
		if !r.Lost {
			v = append(v, float64(r.LatencyNS)/1e3)
		}
	}
	sort.Float64s(v)
	return v
}

func summarise(rows []Row) Stats {
	v := latenciesUS(rows)
	s := Stats{Samples: len(rows), Lost: len(rows) - len(v)}
	if len(v) == 0 {
		return s
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	s.MeanUS = round3(sum / float64(len(v)))
	s.P50US, s.P90US = quantile(v, 0.5), quantile(v, 0.9)
	s.P99US, s.P999US = quantile(v, 0.99), quantile(v, 0.999)
	s.MaxUS = round3(v[len(v)-1])
	return s
}

// quantile is the nearest-rank quantile of sorted v: a value that was actually measured.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return round3(v[max(0, min(i, len(v)-1))])
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
