package experiment

// A run into a directory that holds an earlier run of the same experiment replaces that run: the
// files of the names the experiment writes are removed before it writes its own, and no other
// file of the directory is touched. Without this, a partial or --quick rerun kept the earlier
// run's panels and flows files beside a results.json that no longer described them.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

// heldRun says whether dir holds a run of experiment already: its results.json names it. Only
// then are the files of the experiment's names in it an earlier run's; in a directory without
// one, a file of such a name is the user's, and stays.
func heldRun(dir, experiment string) bool { return results.ExperimentIn(dir) == experiment }

// isFig9Panel says whether name is one of Fig. 9's panels, fig9a.png..fig9f.png.
func isFig9Panel(name string) bool {
	for _, p := range fig9Panels {
		if name == p.name+".png" {
			return true
		}
	}
	return false
}

// isSweepFlowsFile says whether name (in flows/) is a sweep's flows file as flowsFile names it:
// WORKLOAD-LOAD-SCHEME.csv of a built-in workload, a load a sweep can have (0 < load < 1) as %g
// writes it, and a scheme. A file of the user's such as notes.csv, websearch-old.csv or
// websearch-2024-tcp.csv is not.
func isSweepFlowsFile(name string) bool {
	for _, s := range allSchemes() {
		rest, ok := strings.CutSuffix(name, "-"+string(s)+".csv")
		if !ok {
			continue
		}
		for _, w := range workload.Names {
			load, ok := strings.CutPrefix(rest, w+"-")
			if !ok {
				continue
			}
			if f, err := strconv.ParseFloat(load, 64); err == nil && f > 0 && f < 1 && fmt.Sprintf("%g", f) == load {
				return true
			}
		}
	}
	return false
}

// isFanInPanel says whether name is a fan-in panel: fanin-N.png of a host count N that fan-in
// runs (CheckFanInHosts) with a sweep's suffix (sweepPlot), fanin-60-aligned.png; not
// fanin-2024.png.
func isFanInPanel(name string) bool {
	if !strings.HasPrefix(name, "fanin-") || !strings.HasSuffix(name, ".png") {
		return false
	}
	mid := strings.TrimSuffix(strings.TrimPrefix(name, "fanin-"), ".png")
	for _, sp := range sweepPlot {
		if n, ok := strings.CutSuffix(mid, sp.suffix); ok && isHostCount(n) {
			return true
		}
	}
	return false
}

// isHostCount says whether s is a host count fan-in runs, as %d writes it: 60, not 060, +60 or 61.
func isHostCount(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && strconv.Itoa(n) == s && CheckFanInHosts(n) == nil
}
