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
	// The figure is a mean: per-flow ECMP overloads single uplinks below it (review, helper-100).
	for _, want := range []string{"oversubscribed at load 0.6", "on average each rack's 16 hosts send about 85.9 Gb/s",
		"2.15 times its 40 Gb/s of uplinks (1 spine of 40 Gb/s)", "--spines"} {
		if !strings.Contains(w, want) {
			t.Errorf("one spine at 0.6: warning %q lacks %q", w, want)
		}
	}
	// What the rack sends has three significant digits at any rate: rounded to 10 Mb/s, a fabric
	// of 1 Mb/s links read "send about 10 Mb/s ..., 7.16 times its 1 Mb/s" (review, helper-100).
	slowest := thin
	slowest.EdgeRate, slowest.CoreRate = sim.Gbps/1000, sim.Gbps/1000
	if w := coreWarning(slowest, 0.5); !strings.Contains(w, "send about 7.16 Mb/s out of the rack, 7.16 times its 1 Mb/s of uplinks") {
		t.Errorf("1 Mb/s links at 0.5: warning %q, want 7.16 Mb/s sent, 7.16 times the uplink", w)
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

// Points whose flows offered far from their nominal load are named, with the one whose ratio is
// furthest from 1; a point at or above the hosts' capacity says so; summary.md's sentence gives
// each workload's ratio. fig9 --quick's 500 data-mining flows offered 1.35 times the load, 1.079
// at 0.8, without a word (review, helper-97).
func TestOfferedLoadIsSaid(t *testing.T) {
	d := &FCTDocument{Workloads: []string{"websearch", "datamining"}, FlowsPerPoint: map[string]int{"websearch": 1000, "datamining": 500},
		Points: []PointSummary{
			{Workload: "websearch", Load: 0.2, Arm: "tcp-0.2", RealisedLoad: 0.21},
			{Workload: "websearch", Load: 0.8, Arm: "tcp-0.8", RealisedLoad: 0.84},
			{Workload: "datamining", Load: 0.2, Arm: "tcp-0.2", RealisedLoad: 0.27},
			{Workload: "datamining", Load: 0.8, Arm: "tcp-0.8", RealisedLoad: 1.079},
		}}
	text := d.OfferedText()
	if !strings.Contains(text, "1.05 times the load their arrivals were drawn for (the load axis's) on websearch and 1.35 times on datamining") {
		t.Errorf("summary sentence %q: want each workload's ratio", text)
	}
	w := d.OfferedWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "datamining: the 500 flows of a point offered 1.35 times") ||
		!strings.Contains(w[0], "(0.270 at load 0.2; 1.079 at load 0.8, at or above the hosts' capacity)") {
		t.Errorf("warnings %q: want one, of datamining's 1.35 at 0.2 and its point at or above capacity", w)
	}
	// At the hosts' capacity, not above it, is said alike: the check is >= 1 (review, helper-100).
	d.Points[3].RealisedLoad, d.Points[2].RealisedLoad = 1, 0.2
	if w := d.OfferedWarnings(); len(w) != 1 || !strings.Contains(w[0], "(1.000 at load 0.8, at or above the hosts' capacity)") {
		t.Errorf("warnings %q: want one, of datamining's point at capacity", w)
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

// A workload that under-offers is quoted at the point furthest below its load, not at the one
// that offered the most, which was within a few per cent of its own (review, helper-100); three
// workloads are listed as one list, not "..., and ..., and ...".
func TestOfferedLoadUnderAndThreeWorkloads(t *testing.T) {
	d := &FCTDocument{Workloads: []string{"websearch", "datamining", "uniform"},
		FlowsPerPoint: map[string]int{"websearch": 1000, "datamining": 500, "uniform": 2000},
		Points: []PointSummary{
			{Workload: "websearch", Load: 0.2, Arm: "tcp-0.2", RealisedLoad: 0.21},
			{Workload: "websearch", Load: 0.8, Arm: "tcp-0.8", RealisedLoad: 0.84},
			{Workload: "datamining", Load: 0.2, Arm: "tcp-0.2", RealisedLoad: 0.15},
			{Workload: "datamining", Load: 0.8, Arm: "tcp-0.8", RealisedLoad: 0.78},
			{Workload: "uniform", Load: 0.5, Arm: "tcp-0.5", RealisedLoad: 0.5},
		}}
	w := d.OfferedWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "datamining: the 500 flows of a point offered 0.75-0.97 times the load they were drawn for (0.150 at load 0.2)") ||
		strings.Contains(w[0], "capacity") {
		t.Errorf("warnings %q: want one, of datamining's 0.150 at load 0.2, and nothing of capacity", w)
	}
	text := d.OfferedText()
	if want := "on websearch, 0.75-0.97 times on datamining and 1.00 times on uniform (each"; !strings.Contains(text, want) {
		t.Errorf("summary sentence %q: want %q", text, want)
	}
}
