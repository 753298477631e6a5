package experiment

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/qjump-net/qjump/internal/apps/ptp"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
)

// ptp is the paper's Fig. 5 (and Fig. 1a, Fig. 7's PTPd bars): linuxptp's ptp4l master on h1 and
// slave on h2 (software timestamps, UDPv4), bulk iperf3 through both of their switch ports (h3→h1
// carries the master's Delay_Req queue, h4→h2 the slave's Sync queue). All namespaces share one
// clock, so the slave's reported offset is PTP's error alone: what delay variation and asymmetry
// do to it (internal/apps/ptp says why it runs the ntpshm servo).
func init() {
	register(experiment{name: "ptp", title: "PTP clock sync vs bulk (Fig. 5, Fig. 7)", hosts: 4, minHosts: 4,
		run: runPTP, targets: ptpTargets, plots: ptpPlots, paper: ptpPaper, plotted: ptpPlotted})
}

const (
	toolPTP         = "ptp4l"
	metricOffset    = "offset"     // |master offset| the slave reports
	metricPathDelay = "path-delay" // the slave's mean path delay estimate
)

// ptpPlan is how long each arm measures and how often PTP exchanges messages.
type ptpPlan struct {
	samples int
	log2    int // Sync and Delay_Req interval, log2 seconds
}

func (p ptpPlan) duration() time.Duration {
	return time.Duration(float64(p.samples) * float64(time.Second) / float64(int(1)<<-p.log2))
}

func ptpPlanFor(quick bool) ptpPlan {
	if quick {
		return ptpPlan{samples: 192, log2: -5} // 6 s at 32 a second
	}
	return ptpPlan{samples: 960, log2: -5} // 30 s
}

// ptpLevel is PTP's level, as the paper ran ptpd: the guaranteed one, f7 = 1.
const ptpLevel = model.TopLevel

func runPTP(ctx context.Context, env *Env) error {
	plan := ptpPlanFor(env.opts.Quick)
	bulk := [][2]int{{3, 1}, {4, 2}}
	arms := []struct {
		arm  results.Arm
		bulk [][2]int
	}{
		{results.Arm{Name: "idle", Description: "ptp4l master h1, slave h2, idle network", Bulk: "none"}, nil},
		{results.Arm{Name: "contended", Description: "bulk iperf3 into the master's and the slave's switch ports", Bulk: bulkText(bulk)}, bulk},
		{results.Arm{Name: "qjump", Description: "as contended, QJump on: ptp4l at level 7 (f7 = 1), bulk at level 0", Bulk: bulkText(bulk), QJump: true}, bulk},
	}
	for i, a := range arms {
		if a.arm.Name == "idle" {
			if err := env.probeRR(ctx, probeSpec{arm: "idle-probe", from: 2, to: 1, count: 200, interval: 2 * time.Millisecond, size: 64}); err != nil {
				return err
			}
			env.measureEpsilon("idle-probe")
		}
		if a.arm.QJump {
			if err := env.qjumpUp(ctx, model.Factors{ptpLevel: model.Limited(1), 0: model.Unlimited()}); err != nil {
				return err
			}
		}
		env.logf("[%d/%d] %s: %s", i+1, len(arms), a.arm.Name, a.arm.Description)
		if err := runPTPArm(ctx, env, a.arm.Name, a.bulk, plan); err != nil {
			return err
		}
		env.res.Arms = append(env.res.Arms, a.arm)
		s := env.stats(a.arm.Name, toolPTP, metricOffset)
		env.logf("       %d offsets, RMS %.1fµs, p99 %.1fµs, max %.1fµs", s.Samples, s.RMSUS, s.P99US, s.MaxUS)
	}
	return env.qjumpDown(ctx)
}

func runPTPArm(ctx context.Context, env *Env, arm string, bulk [][2]int, plan ptpPlan) error {
	defer env.procs.stopAll()
	warm := time.Second
	for _, f := range bulk {
		if err := env.bulk(ctx, f[0], f[1], warm+3*plan.duration()+30*time.Second); err != nil {
			return err
		}
	}
	if len(bulk) > 0 {
		if err := sleep(ctx, warm); err != nil {
			return err
		}
	}
	rows, err := env.measurePTP(ctx, arm, 1, 2, plan)
	if err != nil {
		return err
	}
	env.record(rows)
	return nil
}

// measurePTP runs a ptp4l master on host master and a slave on host slave, at PTP's level when
// QJump is on, until the slave has plan.samples offsets, and returns them as rows of arm.
func (env *Env) measurePTP(ctx context.Context, arm string, master, slave int, plan ptpPlan) ([]results.Row, error) {
	interval := strconv.Itoa(plan.log2)
	limit := 3*plan.duration() + 20*time.Second // a slave that loses sync still ends
	common := []string{"--iface", env.tb.Names.HostIface(), "--sync-interval", interval, "--delay-req-interval", interval,
		"--for", limit.String()}
	m, err := env.startApp(ctx, "ptp4l master", master, ptpLevel, append([]string{"ptp", "--role", "master",
		"--log", env.rawPath(arm + "-ptp4l-master.log")}, common...)...)
	if err != nil {
		return nil, err
	}
	defer m.stop()
	out := env.rawPath(arm + "-ptp4l-slave.csv")
	s, err := env.startApp(ctx, "ptp4l slave", slave, ptpLevel, append([]string{"ptp", "--role", "slave",
		"--limit", strconv.Itoa(plan.samples), "--out", out, "--log", env.rawPath(arm + "-ptp4l-slave.log")}, common...)...)
	if err != nil {
		return nil, err
	}
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("ptp slave samples: %w", err)
	}
	defer f.Close()
	samples, err := ptp.ReadCSV(f)
	if err != nil {
		return nil, err
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("ptp slave on h%d reported no offsets", slave)
	}
	var rows []results.Row
	for i, p := range samples {
		base := results.Row{Arm: arm, Tool: toolPTP, Sender: slave, Seq: uint64(i), SendNS: p.TimeNS}
		off, delay := base, base
		off.Metric, off.LatencyNS = metricOffset, abs(p.OffsetNS)
		delay.Metric, delay.LatencyNS = metricPathDelay, p.PathDelayNS
		rows = append(rows, off, delay)
	}
	return rows, nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func ptpPaper(_ *Results, s results.Series) string {
	if s.Metric != metricOffset {
		return ""
	}
	switch s.Arm {
	case "contended":
		return "Fig. 5 middle: spikes with Hadoop's shuffles"
	case "qjump":
		return "Fig. 5 bottom, Fig. 7: ≈ ideal"
	}
	return ""
}

// ptpTargets are the criteria on the RMS offset (Fig. 7's measure).
func ptpTargets(r *Results) []results.Target {
	return jumpTargets(r, figRMS, toolPTP, metricOffset, "idle", "contended", "qjump", 20)
}

// figure is the statistic a target judges: the RMS (Fig. 7's measure) or the p99.
type figure struct {
	name string
	of   func(results.Series) float64
}

var (
	figRMS = figure{"RMS", func(s results.Series) float64 { return s.RMSUS }}
	figP99 = figure{"p99", func(s results.Series) float64 { return s.P99US }}
)

// jumpTargets are the two criteria on a figure of a tool's metric: QJump's within 1.5 ×
// the ideal arm's plus one maximum frame time at R (what one lower-level frame already on the
// link adds, non-preemptive), and the contended arm's at least ratio × QJump's.
func jumpTargets(r *Results, fig figure, tool, metric, ideal, contended, qjump string, ratio float64) []results.Target {
	frameUS := wireFrameUS(r)
	id, okI := r.series(ideal, tool, metric)
	co, okC := r.series(contended, tool, metric)
	qj, okQ := r.series(qjump, tool, metric)
	t1 := results.Target{Name: "qjump-near-idle", Unit: "µs", LimitFromRun: true,
		Criterion: fmt.Sprintf("QJump %s %s ≤ 1.5 × %s %s + one maximum frame time at R (%.0f µs)", fig.name, metric, ideal, fig.name, frameUS)}
	t2 := results.Target{Name: "contended-vs-qjump", Unit: "×", Limit: ratio,
		Criterion: fmt.Sprintf("contended %s %s ≥ %g × QJump's", fig.name, metric, ratio)}
	if okI && okQ {
		t1.Value, t1.Limit, t1.Evaluated = fig.of(qj), results.Round3(1.5*fig.of(id)+frameUS), true
		t1.Met = t1.Value <= t1.Limit
	} else {
		t1.Note = "no QJump samples"
	}
	if okC && okQ && fig.of(qj) > 0 {
		t2.Value, t2.Evaluated = results.Round3(fig.of(co)/fig.of(qj)), true
		t2.Met = t2.Value >= t2.Limit
	} else {
		t2.Note = "no QJump samples"
	}
	return []results.Target{t1, t2}
}

// ptpPlots are Fig. 5 (the offset over time, one panel per arm) and Fig. 7's PTP bars (RMS
// offset per arm, normalised to idle).
func ptpPlots(r *Results, rows []results.Row, dir string) ([]string, error) {
	arms := []string{"idle", "contended", "qjump"}
	st := results.Stack{File: "fig5-ptp-offset.png", SameY: true}
	for _, a := range arms {
		st.Panels = append(st.Panels, results.LinePlot{Title: "Fig. 5: PTP offset, " + a, XLabel: "time in arm (s)",
			YLabel: "|offset| (µs)", LogY: true, Lines: []results.Line{timeline(rows, a, toolPTP, metricOffset, a)}})
	}
	files, err := drawAll(st.Draw(dir))
	if err != nil {
		return nil, err
	}
	b := normalisedBars(r, "fig7-ptp-rms.png", "Fig. 7: PTP RMS offset, normalised to idle", arms, toolPTP, metricOffset)
	more, err := drawAll(b.Draw(dir))
	return append(files, more...), err
}

// timeline is one series' samples against seconds since its first sample.
func timeline(rows []results.Row, arm, tool, metric, label string) results.Line {
	l := results.Line{Label: label, Dots: true}
	var t0 int64
	for _, r := range results.Where(rows, results.Key{Arm: arm, Tool: tool, Metric: metric}) {
		if r.Lost {
			continue
		}
		if t0 == 0 {
			t0 = r.SendNS
		}
		l.Points = append(l.Points, results.XY{X: float64(r.SendNS-t0) / 1e9, Y: float64(r.LatencyNS) / 1e3})
	}
	return l
}

// normalisedBars is each arm's RMS over the first arm's, as Fig. 7 normalises to the ideal case;
// its y axis names that arm, as the title does ("normalised to idle").
func normalisedBars(r *Results, file, title string, arms []string, tool, metric string) results.Bars {
	b := results.Bars{File: file, Title: title, YLabel: fmt.Sprintf("RMS / %s's RMS", arms[0])}
	ideal, ok := r.series(arms[0], tool, metric)
	if !ok || ideal.RMSUS <= 0 {
		return b
	}
	for _, a := range arms {
		if s, ok := r.series(a, tool, metric); ok {
			b.Labels, b.Values = append(b.Labels, a), append(b.Values, results.Round3(s.RMSUS/ideal.RMSUS))
		}
	}
	return b
}

// ptpPlotted is Fig. 7's PTP bars as a table: the RMS offset per arm and over idle's.
func ptpPlotted(r *Results) []results.PlotTable {
	return rmsTable(r, "Fig. 7: PTP RMS offset, normalised to idle", []string{"idle", "contended", "qjump"},
		rmsColumn{"fig7-ptp-rms.png", "PTP RMS offset", toolPTP, metricOffset})
}

// rmsColumn is one application's RMS in an rmsTable, as its bars draw it.
type rmsColumn struct{ file, name, tool, metric string }

// rmsTable is Fig. 7's bars as a table, one row per arm: each application's RMS and its ratio to
// the first arm's (the ideal), as normalisedBars draws it; none where no arm has a series, as no
// bars are drawn then (review, helper-92: the table named plots that were not there).
func rmsTable(r *Results, title string, arms []string, apps ...rmsColumn) []results.PlotTable {
	if !anySeries(r, arms, apps) {
		return nil
	}
	t := results.PlotTable{Title: title, Key: "arm"}
	for _, a := range apps {
		t.Files = append(t.Files, a.file)
		t.Columns = append(t.Columns, results.PlotColumn{Name: a.name, Unit: "µs"}, results.PlotColumn{Name: "/ " + arms[0], Unit: "×"})
	}
	for _, arm := range arms {
		row := results.PlotRow{Key: arm}
		for _, a := range apps {
			s, ok := r.series(arm, a.tool, a.metric)
			ideal, okI := r.series(arms[0], a.tool, a.metric)
			switch {
			case !ok:
				row.Values = append(row.Values, nil, nil)
			case !okI || ideal.RMSUS <= 0:
				row.Values = append(row.Values, results.Value(s.RMSUS), nil)
			default:
				row.Values = append(row.Values, results.Value(s.RMSUS), results.Value(results.Round3(s.RMSUS/ideal.RMSUS)))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return []results.PlotTable{t}
}

// anySeries says whether any of arms has a series of any of apps.
func anySeries(r *Results, arms []string, apps []rmsColumn) bool {
	for _, arm := range arms {
		for _, a := range apps {
			if _, ok := r.series(arm, a.tool, a.metric); ok {
				return true
			}
		}
	}
	return false
}

// drawAll turns one Draw's (file, error) into the list of files written.
func drawAll(f string, err error) ([]string, error) {
	if err != nil || f == "" {
		return nil, err
	}
	return []string{f}, nil
}
