package publish

// A run's staging directory: made and locked inside out for the run's files (Stage), and removed
// when the run fails or is stopped (Discard).

import (
	"fmt"
	"os"

	"github.com/qjump-net/qjump/internal/results"
)

// StagingPrefix names a staging directory: hidden, plainly qjump's run in progress, and with the
// pid of the run that writes it, so that a later run can tell one whose run died (sweepStale). It
// is inside the output directory so that publishing is renames on one filesystem.
const StagingPrefix = ".qjump-staging-"

// Staging is a run's staging directory inside its output directory.
type Staging struct {
	out, dir string
	made     []string // the directories of out that the run made (MakeDirs)
	kept     bool     // the staged run is kept under a name of its own (Keep): Discard leaves it
	// replaced is where the publish kept the user's files that the run's replaced (keepReplaced).
	replaced *replacedFiles
	// lock is the staging directory opened and flock'ed for as long as the run has it, so that a
	// run's sweep (sweepStale) can tell a staging directory whose run lives on from a dead run's,
	// whatever pid namespace it runs in.
	lock *os.File
}

// Stage makes out (and its parents) where missing, and an empty staging directory in it, locked
// for this run.
func Stage(out string) (*Staging, error) {
	made, err := results.MakeDirs(out)
	if err != nil {
		results.RemoveMadeDirs(made)
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	sweepStale(out)
	s := &Staging{out: out, made: made}
	if s.dir, s.lock, err = makeLocked(out, fmt.Sprintf("%s%d-", StagingPrefix, os.Getpid())); err != nil {
		s.Discard()
		return nil, fmt.Errorf("create staging directory in %s: %w", out, err)
	}
	return s, nil
}

// Dir is the staging directory, where the run writes its files.
func (s *Staging) Dir() string { return s.dir }

// Out is the output directory the run is published into.
func (s *Staging) Out() string { return s.out }

// Discard removes the staging directory, unless its run is kept (Keep), and out and its parents
// where Stage made them and they are empty: a run that failed or was stopped leaves out as it was.
func (s *Staging) Discard() {
	if s.dir != "" && !s.kept {
		_ = os.RemoveAll(s.dir)
	}
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
	results.RemoveMadeDirs(s.made)
}
