package experiment

// A simulator run's record, results.json and summary.md, and the order in which a run's files are
// written: the same for fct, fig9 and fan-in.

import (
	"io"
	"path/filepath"
	"slices"

	"github.com/qjump-net/qjump/internal/results"
)

// viewed is a simulator run's results document: results.json as it is written, and the view
// summary.md shows.
type viewed interface{ View() results.View }

// writeRun writes doc's record (writeRecord), then its plots (draw), then the record again naming
// the plots. The record comes first: a plot that cannot be drawn must not cost the run its
// results.json, from which sim report redraws (and without which it refuses the directory).
// outcome is doc's; files are the run's files besides the record and the plots (an FCT run's
// flows files), which both records name.
func writeRun(dir string, doc viewed, outcome *results.Outcome, files []string, draw func() ([]string, error)) error {
	if err := writeRecord(dir, doc, outcome, files); err != nil {
		return err
	}
	plots, err := draw()
	if err != nil {
		return err
	}
	if len(plots) == 0 {
		return nil
	}
	return writeRecord(dir, doc, outcome, slices.Concat(plots, files))
}

// writeRecord writes doc's results.json and summary.md naming the run's files: themselves, then
// files.
func writeRecord(dir string, doc viewed, outcome *results.Outcome, files []string) error {
	outcome.Files = append([]string{"results.json", "summary.md"}, files...)
	if err := results.WriteJSON(filepath.Join(dir, "results.json"), doc); err != nil {
		return err
	}
	return writeSummary(dir, doc.View())
}

func writeSummary(dir string, v results.View) error {
	return results.WriteFileAtomic(filepath.Join(dir, "summary.md"), func(w io.Writer) error {
		_, err := io.WriteString(w, v.Markdown())
		return err
	})
}
