package experiment

import (
	"fmt"
	"sort"
	"strings"

	"github.com/qjump-net/qjump/internal/results"
)

// worstShown is how many samples a missed fan-in target lists.
const worstShown = 5

// fanInEvidence lists, for each missed strict target, the samples furthest beyond their limit,
// each with what the network's queues explain of it. At h1's switch port a level-7 probe waits
// only for the probes ahead of it in its level's queue, which reach h1 during its wait, and for
// the one lower-level frame already on the link (QJump arms; the noise arm has no bulk): at R
// that is (ahead + 1 + bulk frame) frame times, plus ε for the switch and the stacks. What is
// beyond that, and a long gap with no delivery to h1 while the probe waited, is the emulation
// stalling (a deferred timer or softirq on a busy CPU), not queueing a real network would have.
func fanInEvidence(r *Results, rows []results.Row) {
	for i := range r.Targets {
		t := &r.Targets[i]
		if !t.Evaluated || t.Met {
			continue
		}
		var limit func(arm string, param float64) (float64, bool)
		switch t.Name {
		case "region-a-bound":
			limit = func(arm string, f7 float64) (float64, bool) {
				return fanInBoundUS(r, f7), r.armHasQJump(arm) && f7 <= 1
			}
		case "noise-floor":
			limit = func(arm string, _ float64) (float64, bool) { return t.Limit, arm == "noise" }
		default:
			continue
		}
		t.Worst, t.Over = fanInWorst(r, rows, limit)
	}
}

// fanInKeptEvidence is fanInEvidence for a report without samples.csv: a missed target keeps the
// samples the run listed, where the run judged it as the code does now, with the same value and
// limit and the same bound on every arm (as its arms recorded them), so that the same samples
// are over the same limits. Otherwise which samples are over is in the rows alone, and the
// target's note says that none is listed.
func fanInKeptEvidence(r *Results, written []results.Target) {
	for i := range r.Targets {
		t := &r.Targets[i]
		if !t.Evaluated || t.Met {
			continue
		}
		if w, ok := writtenTarget(written, t.Name); ok && w.Evaluated && !w.Met && w.Value == t.Value && w.Limit == t.Limit && fanInBoundsRecorded(r) {
			t.Worst, t.Over = w.Worst, w.Over
			continue
		}
		t.Note = strings.TrimPrefix(t.Note+"; no sample over the limit is listed: they are in samples.csv, which this report did not have", "; ")
	}
}

func writtenTarget(written []results.Target, name string) (results.Target, bool) {
	for _, w := range written {
		if w.Name == name {
			return w, true
		}
	}
	return results.Target{}, false
}

// fanInBoundsRecorded says that every QJump arm recorded the bound the code gives it now.
func fanInBoundsRecorded(r *Results) bool {
	for _, a := range r.Arms {
		if a.QJump && a.HasParam && a.BoundUS != results.Round3(fanInBoundUS(r, a.Param)) {
			return false
		}
	}
	return true
}

// fanInWorst is the worstShown delivered network samples furthest over their arm's limit, less
// the machine's measured stalls during each (as the targets judge them), and how many were over.
func fanInWorst(r *Results, rows []results.Row, limit func(arm string, param float64) (float64, bool)) ([]results.Evidence, int) {
	byArm := map[string][]results.Row{}
	type over struct {
		row results.Row
		by  float64
	}
	var overs []over
	for _, row := range rows {
		if row.Tool != toolProbe || row.Metric != metricNetwork || row.Lost {
			continue
		}
		l, judged := limit(row.Arm, row.Param)
		if !judged {
			continue
		}
		byArm[row.Arm] = append(byArm[row.Arm], row)
		if by := float64(row.LatencyNS-stalledNS(r, row))/1e3 - l; by > 0 {
			overs = append(overs, over{row, by})
		}
	}
	sort.SliceStable(overs, func(i, j int) bool { return overs[i].by > overs[j].by })
	var out []results.Evidence
	for _, o := range overs[:min(len(overs), worstShown)] {
		out = append(out, fanInExplain(r, o.row, byArm[o.row.Arm]))
	}
	return out, len(overs)
}

// fanInExplain is row's evidence: its stamps, and how much of its latency the probes delivered
// to h1 while it waited explain. arm is every delivered network sample of its arm.
func fanInExplain(r *Results, row results.Row, arm []results.Row) results.Evidence {
	tx, rx := row.SendNS, row.SendNS+row.LatencyNS
	ahead, last, gap := 0, tx, int64(0)
	var during []int64
	for _, o := range arm {
		if at := o.SendNS + o.LatencyNS; at > tx && at < rx && o != row {
			during = append(during, at)
		}
	}
	sort.Slice(during, func(i, j int) bool { return during[i] < during[j] })
	for _, at := range during {
		ahead++
		gap, last = max(gap, at-last), at
	}
	gap = max(gap, rx-last)
	frames := ahead + 1
	if a, ok := r.Arm(row.Arm); ok && a.Bulk != "none" {
		frames++ // the lower-level frame already on the link
	}
	explained := results.Round3(float64(int64(frames)*r.Model.FrameTimeNS+r.Model.EpsilonNS) / 1e3)
	var stalled *float64
	if r.stalls != nil {
		us := results.Round3(float64(stalledNS(r, row)) / 1e3)
		stalled = &us
	}
	return results.Evidence{Arm: row.Arm, Sender: row.Sender, Seq: row.Seq, SendNS: tx, RecvNS: rx,
		LatencyUS: results.Round3(float64(row.LatencyNS) / 1e3), ExplainedUS: &explained, StalledUS: stalled,
		Context: fmt.Sprintf("%d probes reached h1 while it waited; h1 received none for %.0f µs (a frame takes %.0f µs)",
			ahead, float64(gap)/1e3, float64(r.Model.FrameTimeNS)/1e3)}
}
