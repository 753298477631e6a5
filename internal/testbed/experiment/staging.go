package experiment

// A run writes into a staging directory inside --out and replaces the earlier run there only once
// it has written every file. Writing into --out directly, a rerun stopped half-way overwrote the
// earlier, complete run's stalls.csv and raw/ files beside its results.json and samples.csv, which
// report then recomputed with the other run's stalls; and a complete rerun left raw/ files of the
// earlier one that it did not write itself.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/qjump-net/qjump/internal/results"
)

// stagingPattern names a staging directory: hidden, and plainly qjump's run in progress. It is
// inside --out so that publishing is renames on one filesystem.
const stagingPattern = ".qjump-staging-*"

// staging is a run's staging directory, dir, inside its output directory, out.
type staging struct {
	out, dir string
	made     []string // the directories of out that the run made (results.MakeDirs)
}

// stage makes out (and its parents) where missing, and the staging directory with its raw/ in it.
func stage(out string) (*staging, error) {
	s, err := stageEmpty(out)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(s.dir, "raw"), 0o755); err != nil {
		s.discard()
		return nil, fmt.Errorf("create staging directory in %s: %w", out, err)
	}
	return s, nil
}

// stageEmpty makes out (and its parents) where missing, and an empty staging directory in it.
func stageEmpty(out string) (*staging, error) {
	made, err := results.MakeDirs(out)
	if err != nil {
		results.RemoveMadeDirs(made)
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	s := &staging{out: out, made: made}
	if s.dir, err = os.MkdirTemp(out, stagingPattern); err != nil {
		s.discard()
		return nil, fmt.Errorf("create staging directory in %s: %w", out, err)
	}
	return s, nil
}

// discard removes the staging directory, and out and its parents where the run made them and they
// are empty: a run that failed or was stopped leaves out as it was.
func (s *staging) discard() {
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
	results.RemoveMadeDirs(s.made)
}

// publish replaces the earlier run of experiment in out, if out holds one, by the staged run: the
// files the earlier results.json lists and its raw/ are removed, every other file of out stays,
// and the staged files are moved in.
func (s *staging) publish(experiment string) error {
	if err := s.removeEarlier(experiment); err != nil {
		return err
	}
	if err := results.MoveInto(s.dir, s.out); err != nil {
		return err
	}
	return os.RemoveAll(s.dir)
}

// removeEarlier removes the earlier run's own files from out: those its results.json lists but
// itself, which the staged one replaces, and raw/. Only a results.json of the same experiment makes them
// a run's; without one, a file of such a name is the user's, and only one the run writes replaces it.
func (s *staging) removeEarlier(experiment string) error {
	if results.ExperimentIn(s.out) != experiment {
		return nil
	}
	var earlier struct {
		Files []string `json:"files"`
	}
	if err := results.ReadJSON(filepath.Join(s.out, "results.json"), &earlier); err != nil {
		return err
	}
	own := func(name string) bool { return name != "results.json" && slices.Contains(earlier.Files, name) }
	if err := results.RemoveOwn(s.out, own); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(s.out, "raw")); err != nil {
		return fmt.Errorf("remove the earlier run's raw/ in %s: %w", s.out, err)
	}
	return nil
}

// publishAdvice replaces an earlier advise's runs in out (sweep/ and every confirm-f5=*/ that
// holds a memcached-sweep run) by the staged ones. Advise's runs are published together: each
// published on its own, a rerun stopped after its sweep left the new sweep/ beside the earlier
// advise's confirming runs, and a rerun that chose another factor left the earlier one's.
func (s *staging) publishAdvice() error {
	earlier, err := filepath.Glob(filepath.Join(s.out, confirmPrefix+"*"))
	if err != nil {
		return err
	}
	for _, dir := range append(earlier, filepath.Join(s.out, sweepDir)) {
		if results.ExperimentIn(dir) != "memcached-sweep" {
			continue // not an advise's run: the user's, left alone
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove the earlier advise's %s: %w", dir, err)
		}
	}
	if err := results.MoveInto(s.dir, s.out); err != nil {
		return err
	}
	return os.RemoveAll(s.dir)
}
