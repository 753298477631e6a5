package experiment

import (
	"fmt"
	"math"
	"strings"

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
func coreLoad(fab topology.Config, load float64) float64 {
	out := float64(fab.HostsPerRack) * float64(fab.EdgeRate) * load * coreShare(fab)
	return out / (float64(fab.Spines) * float64(fab.CoreRate))
}

// coreWarning says so when the fabric's core cannot carry load; "" when it can.
func coreWarning(fab topology.Config, load float64) string {
	c := coreLoad(fab, load)
	if c <= 1 {
		return ""
	}
	sent := float64(fab.HostsPerRack) * float64(fab.EdgeRate) * load * coreShare(fab)
	return fmt.Sprintf("the core is oversubscribed at load %g: each rack's %d hosts send about %s out of the rack, "+
		"%.2f times its %s of uplinks (%s of %s): the flows that cross the core measure its overload, "+
		"not the load; more --spines or a faster --core-rate carry it",
		load, fab.HostsPerRack, rateText(sim.Rate(math.Round(sent/1e7)*1e7)), c, rateText(sim.Rate(fab.Spines)*fab.CoreRate),
		CountText(fab.Spines, "spine"), rateText(fab.CoreRate))
}

// offeredRange is, for one workload, the realised load over the nominal one at its points, and
// its point that offered the most.
type offeredRange struct {
	workload string
	lo, hi   float64
	most     PointSummary
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
			if p.RealisedLoad > r.most.RealisedLoad || r.most.Arm == "" {
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
	return "Realised load: the flows offered " + strings.Join(parts, ", and ") + " (each point's realised_load in results.json)."
}

// OfferedWarnings say which workloads' points offered a load far from their nominal one, or more
// than the hosts' capacity.
func (d *FCTDocument) OfferedWarnings() []string {
	var w []string
	for _, r := range d.offered() {
		over := r.most.RealisedLoad >= 1
		if !over && r.lo >= 1-offeredDrift && r.hi <= 1+offeredDrift {
			continue
		}
		msg := fmt.Sprintf("%s: the %s of a point offered %s times the load they were drawn for (%s at load %g",
			r.workload, CountText(d.FlowsPerPoint[r.workload], "flow"), r.ratioText(), LoadText(r.most.RealisedLoad), r.most.Load)
		if over {
			msg += ", more than the hosts' capacity"
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
