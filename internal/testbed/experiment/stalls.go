package experiment

import "github.com/qjump-net/qjump/internal/results"

// lessStalls derives, from every probe's network latency, the latency less the time the machine
// was measured stalled during it (metric network-less-stalls): what a network of the same queues
// on a machine that never stood still would have measured at most. It derives nothing where no
// stalls were measured (judgedMetric then judges the raw latency).
//
// A stall is a CPU that ran none of the guest's threads while its monitor's timer was due
// (internal/machine): the emulated links, queues and shapers did not run either, if
// they needed that CPU. Only measured stall time is taken out, never more than the latency.
func lessStalls(r *Results, rows []results.Row) []results.Row {
	if !r.hasStalls {
		return nil
	}
	var out []results.Row
	for _, row := range rows {
		if row.Tool != toolProbe || row.Metric != metricNetwork {
			continue
		}
		row.Metric = metricUnstalled
		if !row.Lost {
			row.LatencyNS -= stalledNS(r, row)
		}
		out = append(out, row)
	}
	return out
}

// judgedMetric is the network metric the strict targets judge: less the stalls where they were
// measured.
func judgedMetric(r *Results) string {
	if r.hasStalls {
		return metricUnstalled
	}
	return metricNetwork
}

// stalledNS is how long the machine was measured stalled during row.
func stalledNS(r *Results, row results.Row) int64 {
	return r.stalls.Within(row.SendNS, row.SendNS+row.LatencyNS)
}
