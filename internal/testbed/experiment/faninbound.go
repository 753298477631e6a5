package experiment

import (
	"fmt"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
)

// fanInBound is the model's D7 for factor f7 (model.Config.FanIn of the top level), and whether
// the model guarantees it. Beyond f7 = m the model promises nothing; so that the plot can show
// where the bound stops holding, the bound there is D7 at f7 = m continued linearly in f7 (what
// n·P·8·f7/R + ε gives).
//
// Packets are whole. fan-in's probes are nearly full frames (1466 of P = 1538 wire bytes), which
// a budget below f7 = 1 cannot hold, and a host still sends them one whole frame at a time (the
// shaper's bucket holds one frame; f7 = 0.5 sends one every second epoch). So the four senders'
// probes can meet at h1's port within one epoch however small f7 is, behind the bulk frame on
// the link: 4 × 1466 + 1538 wire bytes, 5.9 ms at 10 Mb/s, where n·P·8·0.5/R + ε is 3.1 ms. Below
// f7 = 1 the bound is therefore the one of one frame per host per epoch, D7 at f7 = 1; the fluid
// formula at f7 = 0.5 is no bound on a network of frames.
func fanInBound(m ModelInfo, f7 float64) (time.Duration, bool) {
	f7 = max(f7, 1)
	fi := m.config(model.Factors{model.TopLevel: model.Limited(f7)}).FanIn(model.TopLevel)
	if fi.Guaranteed {
		return fi.Delay, true
	}
	mesochronous := float64(m.Mesochronous)
	atM := m.config(model.Factors{model.TopLevel: model.Limited(mesochronous)}).FanIn(model.TopLevel)
	eps := time.Duration(m.EpsilonNS)
	return time.Duration(float64(atM.Delay-eps)*f7/mesochronous) + eps, false
}

// fanInBoundUS is fanInBound in microseconds, for plots and targets.
func fanInBoundUS(r *Results, f7 float64) float64 {
	d, _ := fanInBound(r.Model, f7)
	return float64(d) / 1e3
}

// fanInPoints are the series the bound is about: the QJump arms' network latency (metric
// network, or network-less-stalls), one per f7.
func fanInPoints(r *Results, metric string) []results.Series {
	var pts []results.Series
	for _, s := range r.Series {
		if s.Tool == toolProbe && s.Metric == metric && r.armHasQJump(s.Arm) {
			pts = append(pts, s)
		}
	}
	return pts
}

// fanInPaper is the paper's region for an arm (Fig. 11: 60-host fan-in, simulated), beside the
// network latency of the QJump arms, which is what the paper's bound is about.
func fanInPaper(r *Results, s results.Series) string {
	if s.Tool == toolProbe && s.Metric == metricOneWay || !r.armHasQJump(s.Arm) || s.Empty() {
		return ""
	}
	switch f7 := s.Param; {
	case f7 <= 1:
		return "A: bound met"
	case f7 <= 2.7:
		return "B: outliers, within bound"
	default:
		return "C: permanent queueing"
	}
}

// fanInTargets judge the network latency less the machine's measured stalls, or, where stalls
// were not measured (a run before the stall monitor, or one whose monitor failed), the raw
// latency: the criteria say which.
func fanInTargets(r *Results) []results.Target {
	judged := judged(r, metricNetwork)
	lessProbe, lessNoise := "", ""
	if judged != metricNetwork {
		lessProbe, lessNoise = ", less the time the machine was measured stalled during it,", ", less the machine's measured stalls,"
	}
	t := results.Target{Name: "region-a-bound", Unit: "µs", LimitFromRun: true,
		Criterion: "region A (f7 ≤ 1, m = 2): no probe's network latency (kernel transmit to kernel receive stamp)" + lessProbe + " exceeds the model's bound n·P·8·max(f7, 1)/R + ε (probes are whole frames: below f7 = 1 a host still sends one per epoch)"}
	worst, lost := -1.0, 0
	for _, s := range fanInPoints(r, judged) {
		// An arm without a delivered sample is a fault (results.LossFaults), never a verdict.
		if s.Param > 1 || s.Empty() {
			continue
		}
		lost += s.Lost
		bound := fanInBoundUS(r, s.Param)
		if over := s.MaxUS - bound; !t.Evaluated || over > worst {
			worst, t.Value, t.Limit, t.Evaluated = over, s.MaxUS, results.Round3(bound), true
		}
	}
	switch {
	case !t.Evaluated:
		t.Note = "no delivered QJump sample in region A"
	case lost > 0:
		// A lost probe is later than any bound.
		t.Met, t.Note = false, fmt.Sprintf("%d probes in region A lost", lost)
	default:
		t.Met = worst <= 0
	}
	noise := results.Target{Name: "noise-floor", Unit: "µs", LimitFromRun: true,
		Criterion: "the idle network's own max network latency" + lessNoise + " is within the f7=1 bound (else the strict form cannot hold)"}
	if s, ok := r.series("noise", toolProbe, judged); ok {
		noise.Value, noise.Limit, noise.Evaluated = s.MaxUS, results.Round3(fanInBoundUS(r, 1)), true
		noise.Met = noise.Value <= noise.Limit
	}
	return []results.Target{t, noise}
}

// fanInPlots draws Fig. 11: latency percentiles and the maximum of the QJump arms against f7, the
// model's bound, the idle network's noise floor, a vertical line where the maximum first exceeds
// the bound (the end of region A), and a ring on every point that lost probes. All of it comes
// from the series, so that report redraws it from results.json alone (fromSeries).
func fanInPlots(r *Results, _ []results.Row, dir string) ([]string, error) {
	p := results.SweepPlot{File: "fig11-fan-in.png",
		Title:  fmt.Sprintf("Fig. 11: level-7 network latency under fan-in (%d hosts, R=%.0f Mb/s)", r.Model.Hosts, r.Model.RateBPS/1e6),
		XLabel: "f7 (packets per epoch per host)", YLabel: "kernel tx → rx latency (µs)", Param: "f7",
		Points: fanInPoints(r, metricNetwork), Bound: func(f7 float64) float64 { return fanInBoundUS(r, f7) }, BoundLabel: "model bound D7",
		Samples: "level-7 probes", Regions: []float64{1, float64(r.Model.Mesochronous)}}
	if noise, ok := r.series("noise", toolProbe, metricNetwork); ok {
		p.FloorUS, p.FloorLabel = noise.MaxUS, "idle noise floor (max)"
	}
	f, err := p.Draw(dir)
	if err != nil || f == "" {
		return nil, err
	}
	return []string{f}, nil
}

// fanInLossAllowed: where the model guarantees the bound (f7 ≤ m) it also guarantees delivery, as
// the switch buffer holds every level-7 packet of an epoch (n·f7 ≤ B), so more than a trace of
// loss there is not the network's. The trace allows for a sender that fell behind on a busy
// machine and caught up with a burst its own shaper could not queue.
func fanInLossAllowed(r *Results, s results.Series) (float64, bool) {
	a, ok := r.Arm(s.Arm)
	return 0.01, ok && a.QJump && a.BoundGuaranteed && s.Metric == metricNetwork
}
