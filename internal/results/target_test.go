package results

import (
	"encoding/json"
	"strings"
	"testing"
)

// A target missed by stalls alone is one whose every sample over the limit is listed and would be
// within the limit with only what the queues explain; anything else is the network's miss.
func TestMissedByStallsOnly(t *testing.T) {
	explained := func(us float64) *float64 { return &us }
	stall := Evidence{LatencyUS: 13143, ExplainedUS: explained(3126)} // queues explain 3,126 µs of 13,143
	queued := Evidence{LatencyUS: 7000, ExplainedUS: explained(6900)} // queues alone exceed the limit
	base := Target{Evaluated: true, Limit: 6202, Value: 13143, Over: 1, Worst: []Evidence{stall}}
	if !base.MissedByStallsOnly() {
		t.Errorf("one unexplained stall is a stall-only miss: %+v", base)
	}
	cases := map[string]func(*Target){
		"met":                  func(g *Target) { g.Met = true },
		"not evaluated":        func(g *Target) { g.Evaluated = false },
		"probes lost":          func(g *Target) { g.Note = "3 probes in region A lost" },
		"more over than shown": func(g *Target) { g.Over = 2 },
		"queues explain it":    func(g *Target) { g.Worst = []Evidence{stall, queued}; g.Over = 2 },
		"nothing explained":    func(g *Target) { g.Worst = []Evidence{{LatencyUS: 13143}} },
		"no count":             func(g *Target) { g.Over = 0 },
	}
	for name, change := range cases {
		g := base
		g.Worst = append([]Evidence(nil), base.Worst...)
		change(&g)
		if g.MissedByStallsOnly() {
			t.Errorf("%s: counted as a stall-only miss: %+v", name, g)
		}
	}
}

// A verdict's figures read as the table's do: a limit of 1,307.7 µs is 1308, not 1.31e+03, as
// ping-iperf's quick run printed it.
func TestVerdictFiguresHaveNoExponent(t *testing.T) {
	for _, c := range []struct {
		value, limit float64
		unit, want   string
	}{
		{951.515, 1307.725, "µs", "MET (952 µs, limit 1308 µs)"},
		{82.618, 50, "×", "MET (82.6 ×, limit 50 ×)"},
		{8864, 6190.4, "µs", "MET (8864 µs, limit 6190 µs)"},
		{1.5, 2, "µs", "MET (1.5 µs, limit 2 µs)"},
		{0.0123, 0.5, "s", "MET (0.0123 s, limit 0.5 s)"},
	} {
		got := Target{Value: c.value, Limit: c.limit, Unit: c.unit, Evaluated: true, Met: true}.Verdict()
		if got != c.want {
			t.Errorf("Verdict of %g against %g: %q, want %q", c.value, c.limit, got, c.want)
		}
	}
}

// An evaluated target's note is part of its verdict: a fan-in target missed by lost probes, whose
// maximum is within the limit, read "MISSED (300 µs, limit 676 µs)" without saying why.
func TestVerdictSaysTheNote(t *testing.T) {
	got := Target{Value: 300, Limit: 676, Unit: "µs", Evaluated: true, Note: "3 probes in region A lost"}.Verdict()
	if want := "MISSED (300 µs, limit 676 µs; 3 probes in region A lost)"; got != want {
		t.Errorf("Verdict = %q, want %q", got, want)
	}
}

// A two-sided target prints its range and the bound nearest its value, which its limit is:
// memcached-sweep's throughput-capped read "MET (0.968 ×, limit 1.25 ×)", as if it had one bound,
// and the wrong one (review, helper-83). results.json carries the range beside the limit.
func TestTwoSidedTargetSaysItsRange(t *testing.T) {
	for _, c := range []struct {
		value float64
		want  string
	}{
		{0.968, "MET (0.968 ×, range 0.75..1.25 ×, nearest bound 0.75 ×)"},
		{1.1, "MET (1.1 ×, range 0.75..1.25 ×, nearest bound 1.25 ×)"},
		{0.464, "MISSED (0.464 ×, range 0.75..1.25 ×, nearest bound 0.75 ×)"},
		{1.3, "MISSED (1.3 ×, range 0.75..1.25 ×, nearest bound 1.25 ×)"},
	} {
		g := Target{Name: "throughput-capped", Unit: "×"}
		g.JudgeIn(c.value, 0.75, 1.25)
		if got := g.Verdict(); got != c.want {
			t.Errorf("%g: %q, want %q", c.value, got, c.want)
		}
		b, err := json.Marshal(g)
		if err != nil || !strings.Contains(string(b), `"range":[0.75,1.25]`) {
			t.Errorf("%g: results.json %s, %v: want the range", c.value, b, err)
		}
		var back Target
		if err := json.Unmarshal(b, &back); err != nil || !back.Ranged || back.Range != g.Range || back.Limit != g.Limit || back.Verdict() != c.want {
			t.Errorf("%g: read back %+v, %v", c.value, back, err)
		}
	}
}
