package experiment

// A run writes into a staging directory inside --out (publish.Stage) and replaces the earlier run
// there only once it has written every file: a rerun stopped half-way overwrote the earlier,
// complete run's stalls.csv and raw/ files beside its results.json and samples.csv, which report
// then recomputed with the other run's stalls. A testbed run that is stopped publishes nothing;
// one that has measured but cannot publish keeps its files (Staging.Keep).

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/qjump-net/qjump/internal/publish"
	"github.com/qjump-net/qjump/internal/results"
)

// rawDir is a testbed run's directory of per-arm files, the run's own whole.
const rawDir = "raw"

// stage makes out (and its parents) where missing, and the staging directory with its raw/ in it.
func stage(out string) (*publish.Staging, error) {
	s, err := publish.Stage(out)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(s.Dir(), rawDir), 0o755); err != nil {
		s.Discard()
		return nil, fmt.Errorf("create staging directory in %s: %w", out, err)
	}
	return s, nil
}

// publishRun replaces the earlier run of experiment in the staging's --out, if it holds one: the
// files the earlier results.json lists and its raw/ make way, every other file stays but for the
// user's files that the run's replace, which are kept in out/replaced-TIME, as say is told.
func publishRun(s *publish.Staging, experiment string, say io.Writer) error {
	err := s.Publish(experiment, publish.Layout{Own: []string{rawDir}})
	if err == nil {
		s.SayReplaced(say)
	}
	return err
}

// publishAdvice replaces an earlier advise's runs in out (sweep/ and every confirm-f5=*/ that
// holds a memcached-sweep run) by the staged ones. Advise's runs are published together: each
// published on its own, a rerun stopped after its sweep left the new sweep/ beside the earlier
// advise's confirming runs, and a rerun that chose another factor left the earlier one's.
func publishAdvice(s *publish.Staging, say io.Writer) error {
	defer s.SayReplaced(say)
	return s.Replace(func() []string {
		var earlier []string
		for _, name := range append(publish.EntriesWithPrefix(s.Out(), confirmPrefix), sweepDir) {
			if results.ExperimentIn(filepath.Join(s.Out(), name)) == "memcached-sweep" { // else the user's, left alone
				earlier = append(earlier, name)
			}
		}
		return earlier
	})
}
