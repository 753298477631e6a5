package experiment

// Fan-in (Fig. 11 at scale) written down with the shared results package: one series per host
// count, epoch alignment and f7, the model's bound on each arm, a target per sweep (region A: no
// level-7 packet over the bound), results.SweepPlot for the figures. A million probes per point
// are not kept, so Report redraws from results.json.

import (
	"fmt"

	"github.com/qjump-net/qjump/internal/results"
)

// Metric of the fan-in series: a level-7 probe's latency over its idle path, in µs.
const MetricLevel7 = "level7-queueing"

// FanInDocument is results.json of fan-in.
type FanInDocument struct {
	results.Header
	HostCounts []int `json:"host_counts"` // the sweeps' fabric sizes, in the order run
	// OldHosts is host_counts as files written before it called them, "hosts": a name each
	// point uses for its own count. Only read (readOldForms); never written.
	OldHosts     []int             `json:"hosts,omitempty"`
	Probes       int               `json:"probes_per_point"`
	ProbeSize    int32             `json:"probe_bytes"`
	Packet       int64             `json:"packet_bytes"`
	Mesochronous int               `json:"mesochronous"`
	BulkLoad     float64           `json:"bulk_load"`
	Seed         uint64            `json:"seed"`
	Points       []FanInPointEntry `json:"points"`
	results.Outcome
}

// FanInPointEntry is one point with its sweep.
type FanInPointEntry struct {
	Hosts    int  `json:"hosts"`
	Aligned  bool `json:"aligned_epochs"`
	Straddle bool `json:"straddled"`
	FanInPoint
}

// epochsTool names a sweep by how the hosts' probes meet: epochs of random phase or aligned, and
// budgets sent at an epoch's start or straddling its end (FanInConfig.Straddle).
func epochsTool(aligned, straddle bool) string {
	switch {
	case aligned && straddle:
		return "aligned-straddled"
	case straddle:
		return "random-straddled"
	case aligned:
		return "aligned-epochs"
	}
	return "random-epochs"
}

// sweepPlot says how a sweep's plot is named and titled.
var sweepPlot = map[string]struct{ suffix, title string }{
	"random-epochs":     {"", "random epoch phases"},
	"aligned-epochs":    {"-aligned", "aligned epochs"},
	"aligned-straddled": {"-straddled", "aligned epochs, two budgets back to back"},
	"random-straddled":  {"-random-straddled", "random epoch phases, two budgets back to back"},
}

// EpochsText says in words how a sweep's probes meet, for progress lines: "aligned epochs, two
// budgets back to back".
func EpochsText(aligned, straddle bool) string { return sweepPlot[epochsTool(aligned, straddle)].title }

func faninArm(hosts int, f7 float64) string { return fmt.Sprintf("n%d-f7=%g", hosts, f7) }

// NewFanInDocument writes the sweeps down.
func NewFanInDocument(h results.Header, c FanInConfig, sweeps []*FanInResult) *FanInDocument {
	doc := &FanInDocument{Header: h, Probes: c.Probes, ProbeSize: c.ProbeSize, Packet: int64(c.Packet),
		Mesochronous: c.Mesochronous, BulkLoad: c.BulkLoad, Seed: c.Seed}
	seen := map[string]bool{}
	for _, r := range sweeps {
		if !seen[fmt.Sprint(r.Hosts)] {
			doc.HostCounts = append(doc.HostCounts, r.Hosts)
			seen[fmt.Sprint(r.Hosts)] = true
		}
		over, evaluated := 0, false
		for _, p := range r.Points {
			doc.Points = append(doc.Points, FanInPointEntry{Hosts: r.Hosts, Aligned: r.Aligned, Straddle: r.Straddle, FanInPoint: p})
			arm := faninArm(r.Hosts, p.F7)
			if !seen[arm] {
				seen[arm] = true
				doc.Arms = append(doc.Arms, results.Arm{Name: arm, QJump: true, Param: p.F7, HasParam: true,
					Description: fmt.Sprintf("%d hosts send level-7 probes of %d B to one host, f7 = %g (region %s)", r.Hosts, c.ProbeSize, p.F7, p.Region),
					Bulk:        fmt.Sprintf("level 0 at %.1f× the destination's link", c.BulkLoad),
					BoundUS:     p.FormulaUs, BoundGuaranteed: p.Guaranteed})
			}
			doc.Series = append(doc.Series, results.Series{Arm: arm, Tool: epochsTool(r.Aligned, r.Straddle), Metric: MetricLevel7, Param: p.F7, HasParam: true, Stats: p.Latency})
			if p.Region == "A" {
				over += p.Lost // a probe a full buffer dropped never arrived in time
				if p.OverBound != nil {
					over += *p.OverBound
				}
				evaluated = true
			}
		}
		t := results.Target{Name: fmt.Sprintf("region-A-n%d-%s", r.Hosts, epochsTool(r.Aligned, r.Straddle)),
			Criterion: "no level-7 probe over the model's bound, or lost to a full switch buffer, where f7 ≤ 1 (region A): the simulator has no noise",
			Value:     float64(over), Limit: 0, Unit: "probes", Evaluated: evaluated, Met: evaluated && over == 0}
		switch {
		case !evaluated:
			t.Note = "no point in region A"
		case len(r.Points) < len(c.Factors):
			t.Note = fmt.Sprintf("judged on the %d of %d points that finished before the run was interrupted", len(r.Points), len(c.Factors))
		}
		doc.Targets = append(doc.Targets, t)
	}
	doc.Faults = results.LossFaults(doc.Series, nil)
	return doc
}

// readOldForms reads files written before host_counts had its name, and when a point without a
// guaranteed bound had bound_us and over_bound 0: such a point has no bound (null) and nothing
// over it.
func (d *FanInDocument) readOldForms() {
	if d.HostCounts == nil {
		d.HostCounts = d.OldHosts
	}
	d.OldHosts = nil
	for i := range d.Points {
		if !d.Points[i].Guaranteed {
			d.Points[i].BoundUs, d.Points[i].OverBound = nil, nil
		}
	}
}

// bound is the model's bound (µs) of arm hosts at f7, the formula continued where not guaranteed.
func (d *FanInDocument) bound(hosts int) func(float64) float64 {
	return func(f7 float64) float64 {
		if a, ok := d.Outcome.Arm(faninArm(hosts, f7)); ok {
			return a.BoundUS
		}
		return 0
	}
}

// plots draws one results.SweepPlot per host count and sweep (epochsTool), in the order run.
func (d *FanInDocument) plots(dir string) ([]string, error) {
	var files []string
	for _, h := range d.HostCounts {
		var tools []string
		byTool := map[string][]results.Series{}
		for _, s := range d.Series {
			if hostsOf(s.Arm) != h {
				continue
			}
			if _, ok := byTool[s.Tool]; !ok {
				tools = append(tools, s.Tool)
			}
			byTool[s.Tool] = append(byTool[s.Tool], s)
		}
		for _, tool := range tools {
			sp := sweepPlot[tool]
			f, err := results.SweepPlot{File: fmt.Sprintf("fanin-%d%s.png", h, sp.suffix),
				Title:  fmt.Sprintf("fan-in of %d hosts, %s (A: f7 ≤ 1, B: ≤ m=%d, C: beyond)", h, sp.title, d.Mesochronous),
				XLabel: "f7", YLabel: "level-7 latency over the idle path [µs]",
				Param: "f7", Points: byTool[tool], Bound: d.bound(h), Samples: "level-7 probes", Regions: []float64{1, float64(d.Mesochronous)},
				BoundLabel: fmt.Sprintf("model bound FanIn(7), guaranteed to f7 = m = %d", d.Mesochronous)}.Draw(dir)
			if err != nil {
				return nil, err
			}
			if f != "" {
				files = append(files, f)
			}
		}
	}
	return files, nil
}

func hostsOf(arm string) int {
	var h int
	var f float64
	fmt.Sscanf(arm, "n%d-f7=%g", &h, &f)
	return h
}

// View is the document as the table and summary.md show it.
func (d *FanInDocument) View() results.View {
	return results.View{Header: d.Header, Outcome: d.Outcome,
		Headline: fmt.Sprintf("hosts %v, %d-byte level-7 probes, P = %d B, m = %d, bulk at %.1f×, at least %d probes per point, seed %d",
			d.HostCounts, d.ProbeSize, d.Packet, d.Mesochronous, d.BulkLoad, d.Probes, d.Seed),
		Method: "Simulated (qjump sim): every host's QJump limiter as the dataplane's; figures are queueing latency over the idle path, " +
			"lost counts level-7 probes dropped by a full switch buffer.",
		Figures: append([]results.Figure{results.MeanFigure}, results.LatencyFigures...), Digits: 2, NoPaper: true}
}

// WriteFanIn writes results.json and summary.md into dir, then the plots, then the two again
// naming the plots (writeRun). Where dir held a fan-in run (heldRun), every fan-in panel in it is
// removed before the plots are drawn, so that none is left from that run or a report of it
// (another host count, a sweep not run this time).
func WriteFanIn(dir string, d *FanInDocument) error {
	earlier := heldRun(dir, d.Experiment) // read before this run's record is written
	return writeRun(dir, d, &d.Outcome, nil, func() ([]string, error) {
		if earlier {
			if err := results.RemoveOwn(dir, isFanInPanel); err != nil {
				return nil, err
			}
		}
		return d.plots(dir)
	})
}
