package experiment

import (
	"fmt"
	"path/filepath"

	"github.com/qjump-net/qjump/internal/results"
)

// Experiment names in results.json's header.
const (
	ExperimentFCT   = "sim-fct"
	ExperimentFig9  = "sim-fig9"
	ExperimentFanIn = "sim-fan-in"
)

// Report rebuilds a simulator run's plots, summary.md and results.json from the files in dir
// (fct and fig9: the flows files; fan-in: results.json's series) and returns its view, whose
// Table is what the run printed.
func Report(dir string) (results.View, error) {
	var h results.Header
	path := filepath.Join(dir, "results.json")
	if err := results.ReadJSON(path, &h); err != nil {
		return results.View{}, err
	}
	switch h.Experiment {
	case ExperimentFCT, ExperimentFig9:
		var d FCTDocument
		if err := results.ReadJSON(path, &d); err != nil {
			return results.View{}, err
		}
		if err := ReportFCT(dir, &d); err != nil {
			return results.View{}, err
		}
		return d.View(), nil
	case ExperimentFanIn:
		var d FanInDocument
		if err := results.ReadJSON(path, &d); err != nil {
			return results.View{}, err
		}
		d.readOldForms()
		if err := WriteFanIn(dir, &d); err != nil {
			return results.View{}, err
		}
		return d.View(), nil
	}
	return results.View{}, fmt.Errorf("report %s: experiment %q is not the simulator's (%s, %s or %s)", dir, h.Experiment,
		ExperimentFCT, ExperimentFig9, ExperimentFanIn)
}
