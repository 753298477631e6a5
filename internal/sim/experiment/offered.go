package experiment

import (
	"fmt"
	"math"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// What a point's load means. A point's load is a fraction of the hosts' edge capacity, and two
// things can make its figures those of another load: a core too thin for what the hosts send
// across it, and a few thousand heavy-tailed flows that offer more or less than the load their
// arrivals were drawn for. Both make valid runs whose load axis a reader would misread, so they
// are said (on stderr and in summary.md), not refused.

// offeredDrift is how far from 1 a workload's realised load over its nominal one may be before
// it is warned of: web search's 10,000 flows offer 1.01 times it, data mining's 3,000 1.19 times
// (docs/reproducing.md, "What a point measures").
const offeredDrift = 0.1

// coreShare is the share of a host's flows that cross the core: destinations are drawn among the
// other hosts, all but the rack's of which are in other racks.
func coreShare(fab topology.Config) float64 {
	if fab.Hosts() <= 1 {
		return 0
	}
	return float64(fab.Hosts()-fab.HostsPerRack) / float64(fab.Hosts()-1)
}

// coreLoad is the load on a rack's uplinks at load: what the rack's hosts send out of the rack
// over the uplinks' capacity (one per spine). The rack's downlinks carry the same on average.
// It is a mean over the uplinks and over time: ECMP places each flow on one uplink, and a few
// heavy-tailed flows overload one below 1. coreWarning still warns only above 1, where the core
// is short of capacity whatever the placement: below it, the paper's own fabric (0.716 at 0.8)
// would warn of the runs it was built for.
func coreLoad(fab topology.Config, load float64) float64 {
	return rackOut(fab, load) / (float64(fab.Spines) * float64(fab.CoreRate))
}

// rackOut is what a rack's hosts send out of the rack at load, in bits per second, on average.
func rackOut(fab topology.Config, load float64) float64 {
	return float64(fab.HostsPerRack) * float64(fab.EdgeRate) * load * coreShare(fab)
}

// coreWarning says so when the fabric's core cannot carry load; "" when it can.
func coreWarning(fab topology.Config, load float64) string {
	c := coreLoad(fab, load)
	if c <= 1 {
		return ""
	}
	return fmt.Sprintf("the core is oversubscribed at load %g: on average each rack's %d hosts send about %s out of the rack, "+
		"%.2f times its %s of uplinks (%s of %s): the flows that cross the core measure its overload, "+
		"not the load; more --spines or a faster --core-rate carry it",
		load, fab.HostsPerRack, rateText(sim.Rate(significant(rackOut(fab, load), 3))), c, rateText(sim.Rate(fab.Spines)*fab.CoreRate),
		CountText(fab.Spines, "spine"), rateText(fab.CoreRate))
}

// significant is x rounded to n significant digits: a rate rounded to a fixed 10 Mb/s read
// "about 10 Mb/s" for 7.16 Mb/s on a fabric of 1 Mb/s links.
func significant(x float64, n int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	unit := math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-float64(n-1))
	return math.Round(x/unit) * unit
}

// offeredRange is, for one workload, the realised load over the nominal one at its points, its
// point whose ratio is furthest from 1, and its point that offered the most.
type offeredRange struct {
	workload  string
	lo, hi    float64
	far, most PointSummary
}

// offered is offeredRange of each workload that has points, in the document's order.
func (d *FCTDocument) offered() []offeredRange {
	var rs []offeredRange
	for _, w := range d.Workloads {
		r := offeredRange{workload: w}
		for _, p := range d.Points {
			if p.Workload != w || p.Load <= 0 {
				continue
			}
			ratio := p.RealisedLoad / p.Load
			if r.most.Arm == "" {
				r.lo, r.hi = ratio, ratio
			}
			r.lo, r.hi = min(r.lo, ratio), max(r.hi, ratio)
			if r.most.Arm == "" || math.Abs(ratio-1) > math.Abs(r.far.RealisedLoad/r.far.Load-1) {
				r.far = p
			}
			if r.most.Arm == "" || p.RealisedLoad > r.most.RealisedLoad {
				r.most = p
			}
		}
		if r.most.Arm != "" {
			rs = append(rs, r)
		}
	}
	return rs
}

// ratioText is a range of ratios, one number where its ends round alike.
func (r offeredRange) ratioText() string {
	lo, hi := fmt.Sprintf("%.2f", r.lo), fmt.Sprintf("%.2f", r.hi)
	if lo == hi {
		return lo
	}
	return lo + "-" + hi
}

// OfferedText is the sentence of summary.md that says what load the points' flows offered.
func (d *FCTDocument) OfferedText() string {
	var parts []string
	for i, r := range d.offered() {
		if i == 0 {
			parts = append(parts, fmt.Sprintf("%s times the load their arrivals were drawn for (the load axis's) on %s", r.ratioText(), r.workload))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s times on %s", r.ratioText(), r.workload))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Realised load: the flows offered " + model.JoinAnd(parts) + " (each point's realised_load in results.json)."
}

// OfferedWarnings say which workloads' points offered a load far from their nominal one, or at
// or above the hosts' capacity. Each quotes the point whose ratio is furthest from 1, which is
// the one that offered the least where the flows under-offered, and the point that offered the
// most where that is at or above capacity.
func (d *FCTDocument) OfferedWarnings() []string {
	var w []string
	for _, r := range d.offered() {
		over := r.most.RealisedLoad >= 1
		if !over && r.lo >= 1-offeredDrift && r.hi <= 1+offeredDrift {
			continue
		}
		msg := fmt.Sprintf("%s: the %s of a point offered %s times the load they were drawn for (%s at load %g",
			r.workload, CountText(d.FlowsPerPoint[r.workload], "flow"), r.ratioText(), LoadText(r.far.RealisedLoad), r.far.Load)
		switch {
		case over && r.most.Arm == r.far.Arm && r.most.Load == r.far.Load:
			msg += ", at or above the hosts' capacity"
		case over:
			msg += fmt.Sprintf("; %s at load %g, at or above the hosts' capacity", LoadText(r.most.RealisedLoad), r.most.Load)
		}
		w = append(w, msg+"): its figures are of that load, not the nominal one; more flows a point (--flows) bring it nearer "+
			"(docs/reproducing.md, \"What a point measures\")")
	}
	return w
}

// LoadText is a realised load with three decimals, or three significant digits below 0.01,
// where three decimals read 0.000.
func LoadText(x float64) string {
	if x < 0.01 {
		return fmt.Sprintf("%.3g", x)
	}
	return fmt.Sprintf("%.3f", x)
}
