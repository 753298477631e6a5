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
	made, err := results.MakeDirs(out)
	if err != nil {
		results.RemoveMadeDirs(made)
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	s := &staging{out: out, made: made}
	if s.dir, err = os.MkdirTemp(out, stagingPattern); err == nil {
		err = os.Mkdir(filepath.Join(s.dir, "raw"), 0o755)
	}
	if err != nil {
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
