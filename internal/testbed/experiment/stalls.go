package experiment

import (
	"slices"
	"strings"

	"github.com/qjump-net/qjump/internal/results"
)

// lessStallsSuffix names a derived metric: the probe's metric less the time the machine was
// measured stalled during each sample (network-less-stalls, oneway-less-stalls).
const lessStallsSuffix = "-less-stalls"

// lessStalls derives, from every probe sample of the metrics given, the latency less the time the
// machine was measured stalled during it: what the same queues on a machine that never stood
// still would have measured at most. It derives nothing where no stalls were measured (judged
// then names the raw metric).
//
// A stall is a CPU that ran none of the guest's threads while its monitor's timer was due
// (internal/machine): the emulated links, queues and shapers did not run either, if they needed
// that CPU. Only measured stall time is taken out, never more than the latency.
func lessStalls(metrics ...string) func(r *Results, rows []results.Row) []results.Row {
	return func(r *Results, rows []results.Row) []results.Row {
		if r.stalls == nil {
			return nil
		}
		var out []results.Row
		for _, row := range rows {
			if row.Tool != toolProbe || !slices.Contains(metrics, row.Metric) {
				continue
			}
			if !row.Lost {
				row.LatencyNS -= stalledNS(r, row)
			}
			row.Metric += lessStallsSuffix
			out = append(out, row)
		}
		return out
	}
}

// judged is the metric a target judges: metric less the stalls where they were measured, as the
// series say (a report from results.json alone has the derived series, not stalls.csv).
func judged(r *Results, metric string) string {
	less := metric + lessStallsSuffix
	for _, s := range r.Series {
		if s.Metric == less {
			return less
		}
	}
	return metric
}

// lessStallsWords is what a criterion on the judged metric (judged) adds to name it: ", less the
// machine's measured stalls" when it is the one less the stalls, nothing for the raw latency.
func lessStallsWords(judged string) string {
	if strings.HasSuffix(judged, lessStallsSuffix) {
		return ", less the machine's measured stalls"
	}
	return ""
}

// stalledNS is how long the machine was measured stalled during row (0 where not measured).
func stalledNS(r *Results, row results.Row) int64 {
	if r.stalls == nil {
		return 0
	}
	return r.stalls.Within(row.SendNS, row.SendNS+row.LatencyNS)
}
