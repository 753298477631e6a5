package results

import (
	"fmt"
	"math"
	"strconv"
)

// Target is one pass criterion, evaluated on the measured figures. Its JSON is targetJSON.
type Target struct {
	Name      string
	Criterion string
	Value     float64
	// Limit is the bound the value is judged against; of a two-sided target (Range), the bound
	// of the range nearest the value, the one its verdict turns on.
	Limit float64
	// Range, where Ranged, is the interval a two-sided target's value must lie in (throughput
	// within 0.75..1.25 × a cap): a single limit would say only one side of it. JudgeIn sets it.
	Range  [2]float64
	Ranged bool
	// LimitFromRun says the limit is computed from the run's own figures (1.5 × the idle arm's
	// p99), so a target that was not evaluated has none: results.json writes it null, not 0.
	LimitFromRun bool
	Unit         string
	Evaluated    bool
	Met          bool
	Note         string
	// Over is how many samples were beyond the limit, where the producer counts them.
	Over int
	// Worst are the samples furthest beyond the limit of a missed target, worst first, so that a
	// reader can tell what caused them.
	Worst []Evidence
}

// Evidence is one sample behind a target's verdict, with its stamps and what the network's own
// queues explain of its latency.
type Evidence struct {
	Arm       string  `json:"arm"`
	Sender    int     `json:"sender"`
	Seq       uint64  `json:"seq"`
	SendNS    int64   `json:"send_ns"` // where its latency starts (a kernel transmit stamp where there is one)
	RecvNS    int64   `json:"recv_ns"` // where it ends (a kernel receive stamp)
	LatencyUS float64 `json:"latency_us"`
	// ExplainedUS is the latency the network's queues explain at most (what was ahead of the
	// sample, as the producer counts it), nil where the producer cannot tell.
	ExplainedUS *float64 `json:"explained_us,omitempty"`
	// StalledUS is how long the machine was measured stalled during it, which the target takes
	// out of its latency; nil where stalls were not measured.
	StalledUS *float64 `json:"stalled_us,omitempty"`
	Context   string   `json:"context,omitempty"` // what happened around it, in words
}

// String is the sample in one line.
func (e Evidence) String() string {
	s := fmt.Sprintf("%s h%d seq %d: %.0f µs (%d → %d ns)", e.Arm, e.Sender, e.Seq, e.LatencyUS, e.SendNS, e.RecvNS)
	switch {
	case e.ExplainedUS != nil && e.LatencyUS > *e.ExplainedUS:
		s += fmt.Sprintf("; queues explain at most %.0f µs, %.0f µs unexplained", *e.ExplainedUS, e.LatencyUS-*e.ExplainedUS)
	case e.ExplainedUS != nil:
		s += fmt.Sprintf("; within the %.0f µs queues explain", *e.ExplainedUS)
	}
	if e.StalledUS != nil {
		s += fmt.Sprintf("; the machine stalled %.0f µs of it", *e.StalledUS)
	}
	if e.Context != "" {
		s += "; " + e.Context
	}
	return s
}

// Verdict is the target's outcome in words, with its value and limit, and its note: why it was
// not evaluated, or what the figures alone do not say (fan-in's "3 probes in region A lost", which
// miss a target whose maximum is within the limit).
func (t Target) Verdict() string {
	if !t.Evaluated {
		return "NOT EVALUATED (" + t.Note + ")"
	}
	word := "MET"
	if !t.Met {
		word = "MISSED"
	}
	note := ""
	if t.Note != "" {
		note = "; " + t.Note
	}
	if t.Ranged {
		return fmt.Sprintf("%s (%s %s, range %s..%s %s, nearest bound %s %s%s)", word, figure(t.Value), t.Unit,
			figure(t.Range[0]), figure(t.Range[1]), t.Unit, figure(t.Limit), t.Unit, note)
	}
	return fmt.Sprintf("%s (%s %s, limit %s %s%s)", word, figure(t.Value), t.Unit, figure(t.Limit), t.Unit, note)
}

// JudgeIn evaluates a two-sided target: value v is met within lo..hi, and its limit is the bound
// nearest v.
func (t *Target) JudgeIn(v, lo, hi float64) {
	t.Value, t.Evaluated, t.Range, t.Ranged = v, true, [2]float64{lo, hi}, true
	t.Limit = lo
	if math.Abs(hi-v) < math.Abs(v-lo) {
		t.Limit = hi
	}
	t.Met = v >= lo && v <= hi
}

// figure prints a target's value or limit to three significant digits, as the table prints its
// figures: whole numbers from 100 up (952, 1308, 57760), never 1.31e+03, which %.3g printed.
func figure(v float64) string {
	if a := math.Abs(v); a >= 100 && a < 1e15 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// MissedByStallsOnly says whether a missed target is missed only by samples its producer's queues
// cannot explain: every sample over the limit is listed in Worst, and each of them would be within
// the limit with only the latency the queues explain. On an emulated network that is the
// emulation stalling (a deferred timer or softirq), which a real network of the same queues would
// not do; a sample the queues explain beyond the limit, a lost one (noted), or more samples over
// than the evidence lists is a miss of the network's own.
func (t Target) MissedByStallsOnly() bool {
	if !t.Evaluated || t.Met || t.Note != "" || t.Over == 0 || t.Over > len(t.Worst) {
		return false
	}
	for _, w := range t.Worst {
		if w.ExplainedUS == nil || *w.ExplainedUS > t.Limit {
			return false
		}
	}
	return true
}
