package experiment

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
)

// mixed is the paper's Fig. 5 with Fig. 1's applications together: PTP (ptp4l master h1, slave
// h2) at level 7 with f7 = 1, memcached (server h3, client h4, one request per millisecond at
// most) at level 5 with its factor solved for half the edge rate, and bulk iperf3 at level 0 with
// f0 = n, as the paper configured ptpd, memcached and Hadoop. The applications share no host,
// only the network: bulk h5→h2 and h6→h4 shares the switch ports of PTP's slave and memcached's
// client. Three phases, each application measured side by side: alone (no bulk), all without
// QJump, all with QJump.
func init() {
	register(experiment{name: "mixed", title: "PTP, memcached and bulk together (Fig. 5, Fig. 1)", hosts: 6, minHosts: 6,
		run: runMixed, targets: mixedTargets, plots: mixedPlots, paper: mixedPaper, plotted: mixedPlotted})
}

var mixedPhases = []string{"alone", "contended", "qjump"}

func runMixed(ctx context.Context, env *Env) error {
	per := 30 * time.Second
	if env.opts.Quick {
		per = 6 * time.Second
	}
	plan := ptpPlan{samples: int(per.Seconds()) * 32, log2: -5}
	bulk := [][2]int{{5, 2}, {6, 4}}
	if err := env.probeRR(ctx, probeSpec{arm: "idle-probe", from: 2, to: 1, count: 200, interval: 2 * time.Millisecond, size: 64}); err != nil {
		return err
	}
	env.measureEpsilon("idle-probe")
	n := env.tb.Config.Hosts
	base := env.modelConfig(model.Factors{ptpLevel: model.Limited(1), 0: model.Limited(float64(n))})
	factors := base.WithTargetRates(map[model.Level]model.Rate{kvLevel: base.Rate / 2}).Factors
	arms := []results.Arm{
		{Name: "alone", Description: "PTP h1→h2 and memcached h4→h3 side by side, no bulk, no QJump", Bulk: "none"},
		{Name: "contended", Description: "with bulk into PTP's slave and memcached's client ports, no QJump", Bulk: bulkText(bulk)},
		{Name: "qjump", Description: "as contended, QJump on: PTP at 7 (f7 = 1), memcached at 5 (T5 = R/2), bulk at 0 (f0 = n)",
			Bulk: bulkText(bulk), QJump: true},
	}
	for i, a := range arms {
		if a.QJump {
			if err := env.qjumpUp(ctx, factors); err != nil {
				return err
			}
		}
		env.logf("[%d/%d] %s: %s", i+1, len(arms), a.Name, a.Description)
		var flows [][2]int
		if a.Bulk != "none" {
			flows = bulk
		}
		if err := runMixedPhase(ctx, env, a.Name, flows, plan, per); err != nil {
			return err
		}
		env.res.Arms = append(env.res.Arms, a)
		p, m := env.stats(a.Name, toolPTP, metricOffset), env.stats(a.Name, toolMemcached, metricRequest)
		env.logf("       PTP RMS offset %.1fµs (%d samples); memcached RMS %.0fµs p99 %.0fµs (%d requests)", p.RMSUS, p.Samples, m.RMSUS, m.P99US, m.Samples)
	}
	return env.qjumpDown(ctx)
}

func runMixedPhase(ctx context.Context, env *Env, phase string, bulk [][2]int, plan ptpPlan, per time.Duration) error {
	defer env.procs.stopAll()
	kv, err := env.startMemcached(ctx, 3, 4)
	if err != nil {
		return err
	}
	warm := time.Second
	for _, f := range bulk {
		if err := env.bulk(ctx, f[0], f[1], warm+3*per+30*time.Second); err != nil {
			return err
		}
	}
	if len(bulk) > 0 {
		if err := sleep(ctx, warm); err != nil {
			return err
		}
	}
	ptpDone := make(chan error, 1)
	go func() {
		rows, err := env.measurePTP(ctx, phase, 1, 2, plan)
		env.record(rows)
		ptpDone <- err
	}()
	count := int(per / time.Millisecond)
	rows, kvErr := kv.load(ctx, env, phase, "--count", strconv.Itoa(count), "--interval", "1ms", "--for", (per + 5*time.Second).String())
	env.record(rows)
	return errors.Join(kvErr, <-ptpDone)
}

func mixedPaper(_ *Results, s results.Series) string {
	switch {
	case s.Tool == toolPTP && s.Metric == metricOffset && s.Arm == "qjump":
		return "Fig. 5 bottom: ≈ alone"
	case s.Tool == toolMemcached && s.Arm == "qjump":
		return "Fig. 5 bottom: ≈ alone"
	case s.Arm == "contended" && (s.Tool == toolMemcached || s.Metric == metricOffset):
		return "Fig. 5 middle: spikes"
	}
	return ""
}

// mixedPlotted is Fig. 7's bars of both applications as one table: each one's RMS per phase and
// over alone's.
func mixedPlotted(r *Results) []results.PlotTable {
	return rmsTable(r, "Fig. 7: RMS of each application, normalised to alone", mixedPhases,
		rmsColumn{"fig7-mixed-ptp-rms.png", "PTP RMS offset", toolPTP, metricOffset},
		rmsColumn{"fig7-mixed-memcached-rms.png", "memcached RMS latency", toolMemcached, metricRequest})
}

// mixedTargets judge both applications as Fig. 7 does, on RMS normalised to the ideal (alone):
// PTP with the ptp experiment's criteria, memcached within 1.5 × alone plus one frame time.
func mixedTargets(r *Results) []results.Target {
	var out []results.Target
	for _, t := range jumpTargets(r, figRMS, toolPTP, metricOffset, "alone", "contended", "qjump", 20) {
		t.Name = "ptp-" + t.Name
		out = append(out, t)
	}
	kv := jumpTargets(r, figRMS, toolMemcached, metricRequest, "alone", "contended", "qjump", 20)[0]
	kv.Name = "memcached-" + kv.Name
	return append(out, kv)
}

// mixedPlots are Fig. 5's timeline (PTP offset and memcached latency across the three phases,
// one time axis, the phases marked) and Fig. 7's bars for both applications.
func mixedPlots(r *Results, rows []results.Row, dir string) ([]string, error) {
	var t0 int64
	for _, row := range rows {
		if (row.Tool == toolPTP || row.Tool == toolMemcached) && row.SendNS > 0 && (t0 == 0 || row.SendNS < t0) {
			t0 = row.SendNS
		}
	}
	at := func(ns int64) float64 { return float64(ns-t0) / 1e9 }
	var marks []results.Mark
	ptpLine, kvLine := results.Line{Label: "PTP |offset|", Dots: true}, results.Line{Label: "memcached request", Dots: true}
	for _, ph := range mixedPhases {
		start := -1.0
		for _, row := range rows {
			if row.Arm != ph || row.Lost || row.SendNS == 0 {
				continue
			}
			pt := results.XY{X: at(row.SendNS), Y: float64(row.LatencyNS) / 1e3}
			switch {
			case row.Tool == toolPTP && row.Metric == metricOffset:
				ptpLine.Points = append(ptpLine.Points, pt)
			case row.Tool == toolMemcached:
				kvLine.Points = append(kvLine.Points, pt)
			default:
				continue
			}
			if start < 0 || pt.X < start {
				start = pt.X
			}
		}
		if start >= 0 {
			marks = append(marks, results.Mark{X: start, Label: ph})
		}
	}
	st := results.Stack{File: "fig5-mixed-timeline.png", Panels: []results.LinePlot{
		{Title: "Fig. 5: PTP offset (level 7) across the phases", XLabel: "time (s)", YLabel: "|offset| (µs)", LogY: true,
			Lines: []results.Line{ptpLine}, Marks: marks},
		{Title: "Fig. 5: memcached request latency (level 5)", XLabel: "time (s)", YLabel: "latency (µs)", LogY: true,
			Lines: []results.Line{kvLine}, Marks: marks}}}
	files, err := drawAll(st.Draw(dir))
	if err != nil {
		return nil, err
	}
	for _, b := range []results.Bars{
		normalisedBars(r, "fig7-mixed-ptp-rms.png", "Fig. 7: PTP RMS offset, normalised to alone", mixedPhases, toolPTP, metricOffset),
		normalisedBars(r, "fig7-mixed-memcached-rms.png", "Fig. 7: memcached RMS latency, normalised to alone", mixedPhases, toolMemcached, metricRequest),
	} {
		more, err := drawAll(b.Draw(dir))
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}
