package experiment

import (
	"slices"

	"github.com/qjump-net/qjump/internal/results"
)

// paramsRun is the swept values, once each and in order, of the arms on the sweep's axis
// (onAxis) that ran: the rows of a figure table (Fig. 6's ratios, Fig. 10's factors).
func paramsRun(r *Results, onAxis func(results.Arm) bool) []float64 {
	var params []float64
	for _, a := range r.Arms {
		if onAxis(a) && a.Skipped == "" && !slices.Contains(params, a.Param) {
			params = append(params, a.Param)
		}
	}
	slices.Sort(params)
	return params
}
