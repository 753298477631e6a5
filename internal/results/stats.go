package results

import (
	"math"
	"sort"

	"github.com/qjump-net/qjump/internal/stats"
)

// Stats summarises one series of latency samples, in microseconds. Samples counts every row, Lost
// those without a value; the figures describe the delivered rest, so a series whose samples were
// all lost has no figures at all (Empty), which results.json writes as null, never as 0 µs.
type Stats struct {
	Samples int
	Lost    int
	MeanUS  float64
	P50US   float64
	P90US   float64
	P99US   float64
	P999US  float64
	MaxUS   float64
	// RMSUS is the root mean square of the delivered samples, the paper's Fig. 7 measure of a
	// quantity that varies around zero (a clock offset) as much as of a latency.
	RMSUS float64
	// PerSec is delivered samples per second over the series' span, from its first send to its
	// last send plus latency: a closed-loop tool's throughput. 0 when the tool gives no send
	// times or the span is empty, which results.json writes as null.
	PerSec float64
}

// Delivered is how many samples have a value.
func (s Stats) Delivered() int { return s.Samples - s.Lost }

// Empty reports that no sample has a value: every figure is absent.
func (s Stats) Empty() bool { return s.Delivered() <= 0 }

// LatenciesUS returns the delivered samples of rows in µs, sorted.
func LatenciesUS(rows []Row) []float64 {
	var v []float64
	for _, r := range rows {
		if !r.Lost {
			v = append(v, float64(r.LatencyNS)/1e3)
		}
	}
	sort.Float64s(v)
	return v
}

// Summarise computes the statistics of rows.
func Summarise(rows []Row) Stats {
	v := LatenciesUS(rows)
	s := Stats{Samples: len(rows), Lost: len(rows) - len(v)}
	if len(v) == 0 {
		return s
	}
	q := func(p float64) float64 { return Round3(stats.Quantile(v, p)) }
	s.MeanUS = Round3(stats.Mean(v))
	s.P50US, s.P90US, s.P99US, s.P999US = q(0.5), q(0.9), q(0.99), q(0.999)
	s.MaxUS = Round3(v[len(v)-1])
	s.RMSUS = Round3(RMS(v))
	s.PerSec = Round3(perSec(rows, len(v)))
	return s
}

// RMS is the root mean square of v (not empty).
func RMS(v []float64) float64 {
	sq := 0.0
	for _, x := range v {
		sq += x * x
	}
	return math.Sqrt(sq / float64(len(v)))
}

// perSec is delivered samples per second over the span of rows with send times.
func perSec(rows []Row, delivered int) float64 {
	var first, last int64
	for _, r := range rows {
		if r.SendNS == 0 {
			return 0
		}
		if first == 0 || r.SendNS < first {
			first = r.SendNS
		}
		end := r.SendNS
		if !r.Lost {
			end += r.LatencyNS
		}
		last = max(last, end)
	}
	if last <= first {
		return 0
	}
	return float64(delivered) / (float64(last-first) / 1e9)
}

// Round3 rounds to three decimals: a figure in µs to the nanosecond, as results.json keeps them.
func Round3(x float64) float64 { return math.Round(x*1000) / 1000 }
