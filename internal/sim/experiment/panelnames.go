package experiment

// A report redraws a run in its own directory, and the panels it draws replace those of the run
// or an earlier report: a panel without points this time must not be left from another. These
// are the names of the panels the simulator's experiments draw, the files a report removes
// before it draws; a file of the user's such as fig9-mine.png or fanin-2024.png is not one.
// (A run's own directory is fresh, and Publish replaces the earlier run with it.)

import (
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/results"
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
