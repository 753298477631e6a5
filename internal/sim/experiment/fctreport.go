package experiment

// The flow-completion-time experiments (fct, fig9) written down with the shared results package:
// results.json holds results.Header, the run's setup and points, and results.Outcome; summary.md
// and the table are a results.View; the panels are results.ParamPlot. Report rebuilds all of it
// from results.json and the flows files.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// NormalisedUnit is the unit of the simulator's series: FCT over the ideal FCT on the idle fabric.
const NormalisedUnit = "x ideal"

// Flow-size classes as series metrics.
const (
	MetricSmall = "fct-small" // (0, 100 kB]
	MetricLarge = "fct-large" // (10 MB, ∞)
	MetricAll   = "fct-all"
)

// FCTDocument is results.json of fct and fig9.
type FCTDocument struct {
	results.Header
	Fabric        topology.Config `json:"fabric"`
	Seed          uint64          `json:"seed"`
	Workloads     []string        `json:"workloads"`
	Loads         []float64       `json:"loads"`
	Schemes       []Scheme        `json:"schemes"`
	FlowsPerPoint map[string]int  `json:"flows_per_point"`
	// Steady says that flows went on arriving, uncounted, until every counted flow of each point
	// had finished (FCTConfig.Steady).
	Steady bool `json:"steady"`
	// QJump is the qjump scheme's configuration on the run's fabric; absent where no qjump point
	// ran, and in runs made before 2026-11-28.
	QJump *QJumpSetup `json:"qjump,omitempty"`
	// NS2IntervalNs is qjump-ns2's interval at the run's edge rate (NS2IntervalAt); absent where
	// no qjump-ns2 point ran, and in runs made before 2026-11-28 (1.05 ms at 10 Gb/s).
	NS2IntervalNs float64        `json:"ns2_interval_ns,omitempty"`
	Points        []PointSummary `json:"points"`
	results.Outcome
}

// QJumpSetup is the QJump configuration a run's qjump points had (PaperQJump for its fabric):
// n, P, m, the epoch m·n·P/R and each level's factor, f0 first.
type QJumpSetup struct {
	Hosts        int       `json:"hosts"`
	PacketBytes  int64     `json:"packet_bytes"`
	Mesochronous int       `json:"mesochronous"`
	EpochNs      float64   `json:"epoch_ns"`
	Factors      []float64 `json:"factors"`
}

// newQJumpSetup records c, whose levels are all limited (PaperQJump's).
func newQJumpSetup(c model.Config) *QJumpSetup {
	s := &QJumpSetup{Hosts: c.Hosts, PacketBytes: int64(c.Packet), Mesochronous: c.Mesochronous,
		EpochNs: float64(c.EpochPicoseconds()) / 1000}
	for l := range model.NumLevels {
		s.Factors = append(s.Factors, c.Factors[model.Level(l)].Value)
	}
	return s
}

// PointSummary is one simulated point: where its flows are and how fast it ran.
type PointSummary struct {
	Workload   string   `json:"workload"`
	Load       float64  `json:"load"`
	Scheme     Scheme   `json:"scheme"`
	Arm        string   `json:"arm"`
	FlowsFile  fileName `json:"flows_file"`
	Flows      int      `json:"flows"`
	Unfinished int      `json:"unfinished"`
	Drops      uint64   `json:"drops"`
	// Background is the flows that arrived after the point's last and were not counted
	// (FCTResult.Background).
	Background int `json:"background_flows"`
	// RealisedLoad is the load the point's flows offered (FCTResult.RealisedLoad).
	RealisedLoad float64 `json:"realised_load"`
	Perf         Perf    `json:"perf"`
}

// ArmName is the arm of a scheme at a load: "qjump-0.5", "qjump-0.25". The load is written in
// full (%g), not rounded: loads 0.2 and 0.25 are different arms.
func ArmName(s Scheme, load float64) string { return fmt.Sprintf("%s-%g", s, load) }

// schemeOf is the scheme of an arm.
func schemeOf(arm string) string {
	s, _, _ := strings.Cut(arm, "-")
	return s
}

// schemeText describes scheme s as it ran on fab (the scheme's buffer filled in): the
// parameters that follow the fabric (buffers, pFabric's window cap, QJump's n, epoch and
// factors, qjump-ns2's interval) with the values the points had.
func schemeText(s Scheme, fab topology.Config) string {
	switch s {
	case TCP:
		return fmt.Sprintf("TCP NewReno, drop-tail switch ports of %d packets, minimum RTO 200 µs", fab.Buffer)
	case DCTCP:
		return fmt.Sprintf("DCTCP, ECN marking at K = %d packets, g = 1/16%s", DCTCPK, bufferText(s, fab))
	case PFabric:
		return fmt.Sprintf("pFabric, remaining-size priorities in %d-packet ports, fixed RTO 45 µs, SACK, windows of at most %d packets",
			fab.Buffer, PFabricMaxCwnd(fab.Buffer))
	case QJump:
		return qjumpText(PaperQJump(fab.Hosts(), fab.EdgeRate)) + bufferText(s, fab)
	case QJumpNS2:
		interval := NS2IntervalAt(fab.EdgeRate)
		return "QJump limited as the paper's ns-2 simulation did: a budget per flow that holds the whole flow, " +
			"refilled every " + intervalText(interval) + " from its start, dropping what does not fit; ACKs unlimited on level 7; levels served in strict priority; " +
			"the authors' TCP (SACK, no fast retransmit, windows of at most 152 packets)" + bufferText(s, fab)
	}
	return string(s)
}

// qjumpText is the QJump arms' description: n, P, the epoch and the factors used.
func qjumpText(c model.Config) string {
	fs := make([]string, 0, model.NumLevels)
	for l := range model.NumLevels {
		fs = append(fs, c.Factors[model.Level(l)].String())
	}
	return fmt.Sprintf("QJump, P = %g kB, n = %d, epoch n·P/R = %s, f0..f7 = %s, levels served in strict priority, flows on levels by size",
		float64(c.Packet)/1000, c.Hosts, intervalText(sim.Time(c.EpochPicoseconds())), strings.Join(fs, ", "))
}

// intervalText is an epoch or interval in the units docs/reproducing.md writes them: 1.05 ms,
// 262.5 µs.
func intervalText(t sim.Time) string {
	if t >= sim.Millisecond {
		return fmt.Sprintf("%.6g ms", float64(t)/float64(sim.Millisecond))
	}
	return fmt.Sprintf("%.6g µs", float64(t)/float64(sim.Microsecond))
}

// bufferText names the buffer where it is not the scheme's default, for the schemes whose
// description does not say it anyway.
func bufferText(s Scheme, fab topology.Config) string {
	if fab.Buffer == s.DefaultBuffer() {
		return ""
	}
	return fmt.Sprintf(", switch ports of %d packets", fab.Buffer)
}

// fctSeries are a point's three series: small, large and all flows, normalised FCT.
func fctSeries(arm, workload string, load float64, flows []FlowRow) []results.Series {
	var small, large, all []float64
	var lostSmall, lostLarge, lostAll int
	for _, r := range flows {
		done := r.Done
		n := r.Normalised()
		isSmall, isLarge := r.Size <= SmallMax, r.Size > LargeMin
		if !done {
			lostAll++
			if isSmall {
				lostSmall++
			}
			if isLarge {
				lostLarge++
			}
			continue
		}
		all = append(all, n)
		if isSmall {
			small = append(small, n)
		}
		if isLarge {
			large = append(large, n)
		}
	}
	mk := func(metric string, v []float64, lost int) results.Series {
		s := append([]float64(nil), v...)
		sortFloats(s)
		return results.Series{Arm: arm, Tool: workload, Metric: metric, Param: load, HasParam: true, Unit: NormalisedUnit, Stats: sortedStats(s, lost)}
	}
	return []results.Series{mk(MetricSmall, small, lostSmall), mk(MetricLarge, large, lostLarge), mk(MetricAll, all, lostAll)}
}

// NewFCTDocument writes the points down: one arm per scheme and load, three series per point,
// a fault for every point with flows unfinished at the horizon (its statistics leave them out).
func NewFCTDocument(h results.Header, c Fig9Config, points []*FCTResult) *FCTDocument {
	doc := &FCTDocument{Header: h, Fabric: c.Fabric, Seed: c.Seed, Workloads: c.Workloads, Loads: c.Loads,
		Schemes: c.Schemes, FlowsPerPoint: c.Flows, Steady: c.Steady}
	doc.recordSchemes(c)
	seen := map[string]bool{}
	for _, l := range c.Loads {
		for _, s := range c.Schemes {
			arm := ArmName(s, l)
			if seen[arm] {
				continue
			}
			seen[arm] = true
			doc.Arms = append(doc.Arms, results.Arm{Name: arm, QJump: s == QJump || s == QJumpNS2, Param: l, HasParam: true,
				Description: fmt.Sprintf("%s; Poisson flow arrivals at load %g", schemeText(s, schemeFabric(s, c.Fabric)), l),
				Bulk:        strings.Join(c.Workloads, ", ") + " flows"})
		}
	}
	ran := map[string]bool{}
	for _, p := range points {
		arm := ArmName(p.Scheme, p.Load)
		ran[arm] = true
		doc.Points = append(doc.Points, PointSummary{Workload: p.Workload, Load: p.Load, Scheme: p.Scheme, Arm: arm,
			Flows: len(p.Flows), Unfinished: p.Unfinished, Drops: p.Drops, Background: p.Background, RealisedLoad: results.Round3(p.RealisedLoad),
			Perf: p.Perf})
	}
	// Only an interrupted run has an arm without a point: say so beside the arm.
	for i, a := range doc.Arms {
		if !ran[a.Name] {
			doc.Arms[i].Skipped = "not run: the run was interrupted first"
		}
	}
	doc.Targets = []results.Target{}
	doc.Files = []string{}
	return doc
}

// recordSchemes records the configuration of the QJump schemes c runs.
func (d *FCTDocument) recordSchemes(c Fig9Config) {
	for _, s := range c.Schemes {
		switch s {
		case QJump:
			d.QJump = newQJumpSetup(PaperQJump(c.Fabric.Hosts(), c.Fabric.EdgeRate))
		case QJumpNS2:
			interval := NS2IntervalAt(c.Fabric.EdgeRate)
			d.NS2IntervalNs = float64(interval) / float64(sim.Nanosecond)
		}
	}
}

// schemeFabric is fab as scheme s's points run on it: the scheme's buffers filled in.
func schemeFabric(s Scheme, fab topology.Config) topology.Config {
	c := FCTConfig{Scheme: s, Fabric: fab}
	return c.fabric()
}

// flowsFile is where a point's flows go: flows.csv for a single point, flows/W-L-S.csv in a sweep
// of planned points (even if it was interrupted after one).
func flowsFile(p *FCTResult, planned int) fileName {
	if planned == 1 {
		return "flows.csv"
	}
	return fileName(filepath.Join(flowsDir, fmt.Sprintf("%s-%g-%s.csv", p.Workload, p.Load, p.Scheme)))
}

// fileName is a file in the run's directory; "" when the run wrote none, which results.json
// writes as null (and reads back from null).
type fileName string

// MarshalJSON writes "" as null.
func (f fileName) MarshalJSON() ([]byte, error) {
	if f == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(f))
}

// fillOutcome computes the series and faults from each point's flows.
func (d *FCTDocument) fillOutcome(flows [][]FlowRow) {
	d.Series, d.Faults = nil, nil
	for i, p := range d.Points {
		d.Series = append(d.Series, fctSeries(p.Arm, p.Workload, p.Load, flows[i])...)
		if p.Unfinished > 0 {
			d.Faults = append(d.Faults, fmt.Sprintf("%s load %g %s: %d of %d flows unfinished at the horizon; its statistics leave them out",
				p.Workload, p.Load, p.Scheme, p.Unfinished, p.Flows))
		}
	}
}

// fig9Panels are the six panels of Fig. 9: per workload, small flows average and 99th
// percentile, large flows average.
var fig9Panels = []struct {
	name, workload, metric, title string
	value                         func(results.Stats) float64
}{
	{"fig9a", "websearch", MetricSmall, "web search: (0, 100kB] average", statMean},
	{"fig9b", "websearch", MetricSmall, "web search: (0, 100kB] 99th percentile", statP99},
	{"fig9c", "websearch", MetricLarge, "web search: (10MB, ∞) average", statMean},
	{"fig9d", "datamining", MetricSmall, "data mining: (0, 100kB] average", statMean},
	{"fig9e", "datamining", MetricSmall, "data mining: (0, 100kB] 99th percentile", statP99},
	{"fig9f", "datamining", MetricLarge, "data mining: (10MB, ∞) average", statMean},
}

func statMean(s results.Stats) float64 { return s.MeanUS }
func statP99(s results.Stats) float64  { return s.P99US }

// plots draws the panels that have points (fig9 only: one load is no curve). It removes every
// panel first, so that none is left from an earlier run or report: a panel without points this
// time, or after a panel that failed, is absent rather than another run's.
func (d *FCTDocument) plots(dir string) ([]string, error) {
	if len(d.Loads) < 2 {
		return nil, nil
	}
	if err := results.RemoveOwn(dir, isFig9Panel); err != nil {
		return nil, err
	}
	var files []string
	for _, panel := range fig9Panels {
		var pts []results.Series
		for _, s := range d.Series {
			if s.Tool == panel.workload && s.Metric == panel.metric {
				pts = append(pts, s)
			}
		}
		f, err := results.ParamPlot{File: panel.name + ".png", Title: panel.title, XLabel: "load", YLabel: "normalised FCT",
			LogY: true, Floor: 1, Points: pts, Curve: func(s results.Series) string { return schemeOf(s.Arm) }, Value: panel.value}.Draw(dir)
		if err != nil {
			return nil, err
		}
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// View is the document as the table and summary.md show it.
func (d *FCTDocument) View() results.View {
	f := d.Fabric
	flows, plural := []string{}, false
	for _, w := range d.Workloads {
		flows = append(flows, fmt.Sprintf("%d %s", d.FlowsPerPoint[w], w))
		plural = plural || d.FlowsPerPoint[w] != 1 || len(d.Workloads) > 1
	}
	perPoint := "flow per point"
	if plural {
		perPoint = "flows per point"
	}
	arrivals := "arrivals stop at each point's last flow, whose network then empties"
	if d.Steady {
		arrivals = "steady: flows go on arriving, uncounted, until every counted flow of the point has finished"
	}
	return results.View{
		Header: d.Header, Outcome: d.Outcome,
		Headline: fmt.Sprintf("%s (%s of %d, %s, %s/%s links), loads %v, %s %s, seed %d",
			CountText(f.Hosts(), "host"), CountText(f.Racks, "rack"), f.HostsPerRack, CountText(f.Spines, "spine"),
			rateText(f.EdgeRate), rateText(f.CoreRate), d.Loads, strings.Join(flows, " and "), perPoint, d.Seed),
		Method: strings.TrimSpace("Simulated (qjump sim); every figure is a flow's completion time over its ideal on the idle fabric, " +
			"fct-small (0, 100 kB], fct-large (10 MB, ∞), fct-all; lost counts flows unfinished at the horizon; " + arrivals + ". " +
			d.OfferedText()),
		Figures: []results.Figure{results.MeanFigure, results.LatencyFigures[0], results.LatencyFigures[2], results.LatencyFigures[4]},
		Unit:    NormalisedUnit, Digits: 2, NoPaper: true,
	}
}

// Fill computes the series and faults of the document's points from their flows, for a run that
// writes no files: no point has a flows file.
func (d *FCTDocument) Fill(points []*FCTResult) {
	flows := make([][]FlowRow, len(points))
	for i, p := range points {
		flows[i] = p.Flows
	}
	d.fillOutcome(flows)
}

// WriteFCT writes an FCT run into dir: the flows files (which the points then name), results.json,
// summary.md and the plots. dir is a fresh one, a staging directory of Publish's, which replaces
// an earlier run with this one.
func WriteFCT(dir string, doc *FCTDocument, points []*FCTResult) error {
	planned := Fig9Config{Workloads: doc.Workloads, Loads: doc.Loads, Schemes: doc.Schemes}.Planned()
	flows := make([][]FlowRow, len(points))
	for i, p := range points {
		doc.Points[i].FlowsFile = flowsFile(p, planned)
		path := filepath.Join(dir, string(doc.Points[i].FlowsFile))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		if err := writeFlowsFile(path, p); err != nil {
			return err
		}
		flows[i] = p.Flows
	}
	return doc.render(dir, flows)
}

// render computes the outcome from the flows and writes results.json, summary.md and the plots.
func (d *FCTDocument) render(dir string, flows [][]FlowRow) error {
	d.fillOutcome(flows)
	return d.redraw(dir)
}

// redraw writes results.json, summary.md and the plots of the outcome as it is (writeRun), the
// records naming the points' flows files too.
func (d *FCTDocument) redraw(dir string) error {
	return writeRun(dir, d, &d.Outcome, d.flowsFiles(), func() ([]string, error) { return d.plots(dir) })
}

// flowsFiles names the points' flows files, in the points' order.
func (d *FCTDocument) flowsFiles() []string {
	var files []string
	for _, p := range d.Points {
		if p.FlowsFile != "" {
			files = append(files, string(p.FlowsFile))
		}
	}
	return files
}

// ReportFCT rebuilds an fct or fig9 directory's series, faults, plots and summary.md from its
// results.json and flows files. Where every flows file is absent (the committed full sweep leaves
// out its 40 MB of them) it redraws from the series results.json holds. Some present and some
// absent, or a file with other than its point's number of flows, is refused: the statistics would
// silently describe a truncated file or another run's, and results.json would be overwritten
// with them.
func ReportFCT(dir string, doc *FCTDocument) error {
	var missing []string
	for _, p := range doc.Points {
		if p.FlowsFile == "" {
			// A results.json written or edited by hand: say which point has no file named.
			missing = append(missing, fmt.Sprintf("none named for %s %s", p.Workload, p.Arm))
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, string(p.FlowsFile))); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, string(p.FlowsFile))
		}
	}
	switch {
	case len(missing) == len(doc.Points):
		return doc.redraw(dir)
	case len(missing) > 0:
		return fmt.Errorf("%s: %d of the %d flows files results.json names are missing (%s): "+
			"restore them, or remove every flows file to redraw from results.json alone",
			dir, len(missing), len(doc.Points), strings.Join(missing, ", "))
	}
	flows := make([][]FlowRow, len(doc.Points))
	for i, p := range doc.Points {
		path := filepath.Join(dir, string(p.FlowsFile))
		rows, err := ReadFlowsFile(path, p.Scheme)
		if err != nil {
			return err
		}
		if len(rows) != p.Flows {
			return fmt.Errorf("%s has %d flows, but results.json says its point simulated %d: "+
				"the file is truncated or from another run", path, len(rows), p.Flows)
		}
		flows[i] = rows
	}
	return doc.render(dir, flows)
}

// rateText is r in Gb/s, or in Mb/s or kb/s below that: "0.001 Gb/s" for 1 Mb/s links read as a
// typo (review, helper-71).
func rateText(r sim.Rate) string {
	switch {
	case r >= sim.Gbps:
		return fmt.Sprintf("%g Gb/s", float64(r)/float64(sim.Gbps))
	case r >= sim.Gbps/1000:
		return fmt.Sprintf("%g Mb/s", float64(r)/float64(sim.Gbps/1000))
	}
	return fmt.Sprintf("%g kb/s", float64(r)/float64(sim.Gbps/1_000_000))
}

// CountText is "1 rack", "9 racks".
func CountText(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
