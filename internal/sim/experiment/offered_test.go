package experiment

import (
	"math"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// The core's load is what a rack's hosts send out of the rack over its uplinks: on the paper's
// fabric, 16 hosts × 10 Gb/s × 0.8 × 128/143 of the flows leaving the rack, over 4 × 40 Gb/s, is
// 0.716, carried without a word. One spine at load 0.6 is 2.15 times its uplink: a review ran it
// and got figures labelled load 0.6 without a warning (review, helper-97).
func TestCoreWarningSaysWhenTheCoreCannotCarryTheLoad(t *testing.T) {
	paper := topology.PaperFabric()
	if got := coreLoad(paper, 0.8); math.Abs(got-16*10*0.8*128/143/160) > 1e-9 {
		t.Errorf("paper fabric at 0.8: core load %g, want %g", got, 16*10*0.8*128/143/160)
	}
	if w := coreWarning(paper, 0.8); w != "" {
		t.Errorf("paper fabric at 0.8 warned: %s", w)
	}
	thin := paper
	thin.Spines = 1
	w := coreWarning(thin, 0.6)
	for _, want := range []string{"oversubscribed at load 0.6", "2.15 times its 40 Gb/s of uplinks (1 spine of 40 Gb/s)", "--spines"} {
		if !strings.Contains(w, want) {
			t.Errorf("one spine at 0.6: warning %q lacks %q", w, want)
		}
	}
	slow := paper
	slow.CoreRate = 10 * sim.Gbps
	if (&FCTConfig{Scheme: TCP, Fabric: slow, Load: 0.5, Flows: 10}).Warnings() == nil {
		t.Error("a point on 4 uplinks of 10 Gb/s at load 0.5 (1.79 times the core) has no warning")
	}
	if w := (Fig9Config{Schemes: []Scheme{TCP, DCTCP}, Loads: []float64{0.1, 0.8}, Fabric: thin}).Warnings(); len(w) != 1 || !strings.Contains(w[0], "load 0.8") {
		t.Errorf("a sweep to 0.8 on one spine: warnings %q, want one, of its highest load", w)
	}
}

// Points whose flows offered far from their nominal load are named, with the one that offered the
// most; a point over the hosts' capacity says so; summary.md's sentence gives each workload's
// ratio. fig9 --quick's 500 data-mining flows offered 1.35 times the load, 1.079 at 0.8, without
// a word (review, helper-97).
func TestOfferedLoadIsSaid(t *testing.T) {
	d := &FCTDocument{Workloads: []string{"websearch", "datamining"}, FlowsPerPoint: map[string]int{"websearch": 1000, "datamining": 500},
		Points: []PointSummary{
			{Workload: "websearch", Load: 0.2, Arm: "tcp-0.2", RealisedLoad: 0.21},
			{Workload: "websearch", Load: 0.8, Arm: "tcp-0.8", RealisedLoad: 0.84},
			{Workload: "datamining", Load: 0.2, Arm: "tcp-0.2", RealisedLoad: 0.27},
			{Workload: "datamining", Load: 0.8, Arm: "tcp-0.8", RealisedLoad: 1.079},
		}}
	text := d.OfferedText()
	if !strings.Contains(text, "1.05 times the load their arrivals were drawn for (the load axis's) on websearch, and 1.35 times on datamining") {
		t.Errorf("summary sentence %q: want each workload's ratio", text)
	}
	w := d.OfferedWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "datamining: the 500 flows of a point offered 1.35 times") ||
		!strings.Contains(w[0], "1.079 at load 0.8, more than the hosts' capacity") {
		t.Errorf("warnings %q: want one, of datamining's 1.35 and its point over capacity", w)
	}
	d.Points[3].RealisedLoad = 0.85
	d.Points[2].RealisedLoad = 0.21
	if w := d.OfferedWarnings(); len(w) != 0 {
		t.Errorf("every point within 10%% of its load: warned %q", w)
	}
	if text := d.OfferedText(); !strings.Contains(text, "1.05-1.06 times on datamining") {
		t.Errorf("summary sentence %q: want datamining's range 1.05-1.06", text)
	}
}
