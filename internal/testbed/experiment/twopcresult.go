package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/apps/twopc"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
)

// twoPCRate is a throughput arm's committed transactions per second.
func twoPCRate(r *Results, t twopc.Transport, ratio float64) (float64, bool) {
	return twoPCRateOf(r, twoPCArm(t, ratio))
}

// twoPCRateOf is twoPCRate of the arm called name.
func twoPCRateOf(r *Results, name string) (float64, bool) {
	s, ok := r.series(name, toolTwoPC, metricTxn)
	ab, _ := r.series(name, toolTwoPC, metricAbort)
	rate := committedPerSec(s.Stats, ab.Stats)
	return rate, ok && rate > 0
}

// committedPerSec is the transactions per second over the arm's span, less the aborted share.
func committedPerSec(txn, aborted results.Stats) float64 {
	if txn.Samples == 0 {
		return 0
	}
	return results.Round3(txn.PerSec * float64(txn.Samples-aborted.Samples) / float64(txn.Samples))
}

// twoPCMaxRatio is the highest interference ratio the run swept (an arm that committed nothing
// has no commit series, so the arms say).
func twoPCMaxRatio(r *Results) float64 {
	top := 0.0
	for _, a := range r.Arms {
		if onRatioAxis(a) {
			top = max(top, a.Param)
		}
	}
	return top
}

// onRatioAxis says whether a is a point of the ratio sweep (T idle, T r=X), by its name: runs
// before param 0 was written have no param for the idle arms, which are its point 0 all the same.
func onRatioAxis(a results.Arm) bool {
	return a.Name == twoPCArm(twopc.Transport(strings.Fields(a.Name)[0]), a.Param)
}

func twoPCTargets(r *Results) []results.Target {
	top := twoPCMaxRatio(r)
	t1 := results.Target{Name: "qjump-holds-rate", Unit: "%", Limit: 90,
		Criterion: fmt.Sprintf("over qjump, committed/s at the highest ratio (%g) ≥ 90%% of its idle rate", top)}
	t2 := results.Target{Name: "qjump-vs-tcp", Unit: "×", Limit: 3,
		Criterion: fmt.Sprintf("over qjump, committed/s at the highest ratio (%g) ≥ 3 × tcp's", top)}
	qIdle, ok1 := twoPCRate(r, twopc.QJump, 0)
	qTop, ok2 := twoPCRate(r, twopc.QJump, top)
	tTop, ok3 := twoPCRate(r, twopc.TCP, top)
	if ok1 && ok2 && top > 0 {
		t1.Value, t1.Evaluated = results.Round3(100*qTop/qIdle), true
		t1.Met = t1.Value >= t1.Limit
	} else {
		t1.Note = "no qjump arms"
	}
	switch {
	case ok2 && ok3 && top > 0:
		t2.Value, t2.Evaluated = results.Round3(qTop/tTop), true
		t2.Met = t2.Value >= t2.Limit
	case ok2 && top > 0:
		// tcp committed nothing in the arm: its rate was below one per arm, so the ratio is at
		// least qjump's rate times the arm's length (a lower bound, reported as the value).
		per := twoPCPlanFor(r.Quick).per.Seconds()
		t2.Value, t2.Evaluated = results.Round3(qTop*per), true
		t2.Met = t2.Value >= t2.Limit
		t2.Note = fmt.Sprintf("tcp committed nothing in %g s: the value is a lower bound, qjump's rate × %g s", per, per)
	default:
		t2.Note = "no qjump arms"
	}
	t3 := results.Target{Name: "qjump-holds-machine-rate", Unit: "%", Limit: 90,
		Criterion: "over qjump, committed/s at the highest ratio ≥ 90% of the rate with the same generators between their own hosts (machine-load): what the network costs beyond the shared CPUs"}
	if ml, ok := twoPCRateOf(r, string(twopc.QJump)+" machine-load"); ok && ok2 {
		t3.Value, t3.Evaluated = results.Round3(100*qTop/ml), true
		t3.Met = t3.Value >= t3.Limit
	} else {
		t3.Note = "no machine-load arm"
	}
	t1.Note = joinNotes(t1.Note, falseFailureNote(r, twoPCArm(twopc.QJump, 0), twoPCArm(twopc.QJump, top)))
	t2.Note = joinNotes(t2.Note, falseFailureNote(r, twoPCArm(twopc.QJump, top), twoPCArm(twopc.TCP, top)))
	t3.Note = joinNotes(t3.Note, falseFailureNote(r, twoPCArm(twopc.QJump, top), string(twopc.QJump)+" machine-load"))
	return []results.Target{t1, t2, t3, noFalseFailures(r)}
}

// noFalseFailures is the target that no live server was declared dead in a throughput arm. Those
// arms wait throughputWait for a silent server so that committed/s measures what delay and
// retransmission do to the protocol, not a failure detector; but a tcp transaction behind a full
// queue can wait longer (retransmission timeouts that double from 200 ms), and then the server is
// declared dead while alive: its transaction aborts after the wait, and it is left out of every
// later one, so the arm's rate counts the waits and a smaller cluster (the rate targets say so in
// their notes). A run with any is not a failed measurement, but its rates are not the protocol's
// alone, and the verdict says where.
func noFalseFailures(r *Results) results.Target {
	t := results.Target{Name: "no-false-failure", Unit: "servers", Limit: 0,
		Criterion: fmt.Sprintf("no live server declared dead in a throughput arm (each waits %s for a silent server, so that committed/s measures the protocol, not a failure detector)",
			model.DurationText(throughputWait))}
	var arms []string
	for _, a := range r.Arms {
		if !onRatioAxis(a) && !strings.HasSuffix(a.Name, " machine-load") || a.Skipped != "" {
			continue // a failure arm, or one that did not run
		}
		t.Evaluated = true
		if n := falseFailures(r, a.Name); n > 0 {
			t.Value += float64(n)
			arms = append(arms, fmt.Sprintf("%s %d", a.Name, n))
		}
	}
	if !t.Evaluated {
		t.Note = "no throughput arms"
		return t
	}
	t.Met = t.Value == 0
	if !t.Met {
		t.Note = fmt.Sprintf("declared dead while alive: %s; those arms' committed/s counts the %s waits and the servers left out after them",
			strings.Join(arms, ", "), model.DurationText(throughputWait))
	}
	return t
}

// falseFailures is how many live servers arm declared dead.
func falseFailures(r *Results, arm string) int {
	s, _ := r.series(arm, toolTwoPC, metricFalse)
	return s.Samples
}

// falseFailureNote names the arms among arms that declared live servers dead, for the notes of the
// targets judged on their rates; "" where none did.
func falseFailureNote(r *Results, arms ...string) string {
	var named []string
	for _, a := range arms {
		if n := falseFailures(r, a); n > 0 {
			named = append(named, fmt.Sprintf("%s declared %d live server(s) dead", a, n))
		}
	}
	if len(named) == 0 {
		return ""
	}
	return strings.Join(named, ", ") + ": its rate counts the waits (no-false-failure)"
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// twoPCPaper is the paper's detection times beside the detect series. Its Fig. 6 is of rates,
// which compare with no latency series: twoPCPlotted sets them beside the committed rates.
func twoPCPaper(_ *Results, s results.Series) string {
	switch {
	case s.Metric == metricDetect && s.Arm == string(twopc.QJump)+" failure":
		return "2 epochs (≈40µs at 10G)"
	case s.Metric == metricDetect:
		return "150ms (RAMCloud's timeout)"
	}
	return ""
}

// twoPCPlotted is Fig. 6 as a table: committed transactions per second at each ratio per
// transport (0 where an arm committed nothing; none where it did not run), qjump's over tcp's, and
// qjump's with the generators between their own hosts.
func twoPCPlotted(r *Results) []results.PlotTable {
	t := results.PlotTable{Title: "Fig. 6: committed transactions / s against the interference ratio", Files: []string{"fig6-2pc-rate.png"},
		Key: "interference ratio", Paper: "10 G, 10,000/s without interference, qjump about 30 % more; above a ratio of 2, tcp and udp fall to 20 % of that, " +
			"qjump stays constant at 6.5 × theirs"}
	for _, tr := range twoPCTransports {
		t.Columns = append(t.Columns, results.PlotColumn{Name: string(tr), Unit: "committed/s"})
	}
	t.Columns = append(t.Columns, results.PlotColumn{Name: "qjump / tcp", Unit: "×"})
	for _, ratio := range paramsRun(r, onRatioAxis) {
		row := results.PlotRow{Key: strconv.FormatFloat(ratio, 'g', -1, 64)}
		for _, tr := range twoPCTransports {
			row.Values = append(row.Values, twoPCRateCell(r, twoPCArm(tr, ratio)))
		}
		if q, tcp := row.Values[2], row.Values[0]; q != nil && tcp != nil && *tcp > 0 {
			row.Values = append(row.Values, results.Value(results.Round3(*q / *tcp)))
		} else {
			row.Values = append(row.Values, nil)
		}
		t.Rows = append(t.Rows, row)
	}
	if ml := twoPCRateCell(r, string(twopc.QJump)+" machine-load"); ml != nil {
		t.Rows = append(t.Rows, results.PlotRow{Key: fmt.Sprintf("%g, generators between their own hosts (machine load)", twoPCMaxRatio(r)),
			Values: []*float64{nil, nil, ml, nil}})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return []results.PlotTable{t}
}

// twoPCRateCell is the committed rate of the arm called name, 0 where it committed nothing, nil
// where it did not run.
func twoPCRateCell(r *Results, name string) *float64 {
	if a, ok := r.Arm(name); !ok || a.Skipped != "" {
		return nil
	}
	rate, _ := twoPCRateOf(r, name)
	return results.Value(rate)
}

// twoPCPlots are Fig. 6 (committed/s against the interference ratio, one line per transport) and
// the failure detection time per transport.
func twoPCPlots(r *Results, _ []results.Row, dir string) ([]string, error) {
	p := twoPCRatePlot(r)
	files, err := drawAll(p.Draw(dir, "fig6-2pc-rate.png"))
	if err != nil {
		return nil, err
	}
	b := results.Bars{File: "fig6-2pc-detect.png", Title: "failure detection: freeze of a server to the coordinator's verdict", YLabel: "ms"}
	for _, t := range twoPCTransports {
		if s, ok := r.series(string(t)+" failure", toolTwoPC, metricDetect); ok {
			b.Labels, b.Values = append(b.Labels, string(t)), append(b.Values, results.Round3(s.MaxUS/1e3))
		}
	}
	more, err := drawAll(b.Draw(dir))
	return append(files, more...), err
}

// twoPCRatePlot is Fig. 6's committed rate per transport against the interference ratio, each
// line joined only where its points are neighbours in the full sweep, and the machine-load line.
func twoPCRatePlot(r *Results) results.LinePlot {
	p := results.LinePlot{Title: fmt.Sprintf("Fig. 6: two-phase commit, 1 coordinator and %d servers", twoPCLayout(r.Testbed.Hosts).count()),
		XLabel: "interference ratio (burst / switch queue); 0: no interference", YLabel: "committed transactions / s"}
	for _, t := range twoPCTransports {
		l := results.Line{Label: string(t)}
		for _, arm := range r.Arms {
			if arm.Name == twoPCArm(t, arm.Param) {
				rate, _ := twoPCRate(r, t, arm.Param) // 0 when it committed nothing
				l.Points = append(l.Points, results.XY{X: arm.Param, Y: rate})
			}
		}
		slices.SortFunc(l.Points, func(a, b results.XY) int { return int(a.X*1000 - b.X*1000) })
		l.Unjoined = !sweepNeighbours(l.Points, append([]float64{0}, twoPCRatios(false)...))
		p.Lines = append(p.Lines, l)
	}
	if ml, ok := twoPCRateOf(r, string(twopc.QJump)+" machine-load"); ok {
		p.Lines = append(p.Lines, results.Line{Label: "qjump, generators between their own hosts (machine load)", Model: true,
			Points: []results.XY{{X: 0, Y: ml}, {X: twoPCMaxRatio(r), Y: ml}}})
	}
	return p
}

func (h twoPCHosts) count() int { return len(h.servers) }

// sweepNeighbours says whether every two consecutive points (sorted by x) are neighbours in sweep,
// the full sweep they come from, so that a line between them draws nothing that was not measured:
// a quick run's ratios 0 and 4 are not, and a line between them drew tcp falling evenly through
// ratios 0.5 to 3.
func sweepNeighbours(pts []results.XY, sweep []float64) bool {
	prev := -1
	for _, p := range pts {
		i := slices.Index(sweep, p.X)
		if i < 0 || prev >= 0 && i != prev+1 {
			return false
		}
		prev = i
	}
	return true
}
