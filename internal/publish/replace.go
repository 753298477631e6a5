package publish

// Replacing the earlier run in out by the staged one: nothing is deleted until every move is made,
// and where a move cannot be made everything is moved back and the run is kept.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qjump-net/qjump/internal/results"
)

// Layout is what of a run's output directory belongs to the run, for Publish.
type Layout struct {
	// Own are the run's directories of its own, replaced whole (the testbed's raw/).
	Own []string
	// Merge are directories whose files are published one by one, beside what the user keeps
	// there (the simulator's flows/).
	Merge []string
	// Partial says the run stopped before its end, and its record says so (Header.Interrupted).
	Partial bool
}

// ErrBesideEarlier is why a partial run was kept rather than published: out holds an earlier run
// of the experiment, which a run that stopped early must not replace.
var ErrBesideEarlier = errors.New("the output directory holds an earlier run, which this partial run does not replace")

// Publish replaces the earlier run of experiment in out, if out holds one, by the staged run: the
// files the earlier results.json lists and its own directories make way, a file of the user's
// that a staged file replaces is kept in out/replaced-TIME (Replaced), every other file of out
// stays, and the staged files are moved in (replace). A partial run where out holds an earlier
// run, complete or partial, is kept beside it instead (Keep, ErrBesideEarlier): a sweep stopped
// after a minute lost the hour-long run it was meant to redo, and one stopped after 15 points the
// 43 of an earlier stopped one.
func (s *Staging) Publish(experiment string, l Layout) error {
	return s.whileOutLocked(func() error {
		earlier, held := s.earlierRun(experiment, l.Own)
		if l.Partial && held {
			return s.Keep(ErrBesideEarlier)
		}
		return s.replace(earlier, l.Merge)
	})
}

// Replace replaces the entries of out that earlier names by the staged run (replace), for a caller
// that knows its earlier run by other means than a results.json (an advise's runs). earlier is
// asked once out is the publish's own (lockOut), as Publish reads the earlier run's record.
func (s *Staging) Replace(earlier func() []string) error {
	return s.whileOutLocked(func() error { return s.replace(earlier(), nil) })
}

// earlierRun names the earlier run's own entries of out: its own directories, the files its
// results.json lists that are there, and results.json itself; held says there is one. Only a results.json of the same experiment makes them a run's (ExperimentIn's
// reading, with the list beside it); without one, a file of such a name is the user's, and only
// one the run writes replaces it.
func (s *Staging) earlierRun(experiment string, own []string) (names []string, held bool) {
	var earlier struct {
		results.Header
		Files []string `json:"files"`
	}
	if results.ReadJSON(filepath.Join(s.out, "results.json"), &earlier) != nil || earlier.Experiment != experiment {
		return nil, false
	}
	names = slices.Clone(own)
	for _, name := range append(earlier.Files, "results.json") {
		if fi, err := os.Lstat(filepath.Join(s.out, name)); err == nil && fi.Mode().IsRegular() && filepath.IsLocal(name) &&
			!slices.Contains(names, name) && !inOwnDir(name, own) {
			names = append(names, name)
		}
	}
	return names, true
}

// inOwnDir says whether name is inside one of the run's own directories, which move whole.
func inOwnDir(name string, own []string) bool {
	for _, d := range own {
		if strings.HasPrefix(filepath.Clean(name), filepath.Clean(d)+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// replace moves aside, into a directory of out, the earlier run's entries and every file of out
// that a staged entry would replace, then moves the staged entries in (results.json last), and
// deletes the two directories only once every move is made. Where a move cannot be made, nothing
// is deleted: what moved is moved back, the earlier run and the user's files into out and the new
// run into its staging directory, which is kept (Keep), and the error names where each is. A
// directory of out where the run has an entry of that name (the user's raw/, with no run beside
// it) is not merged into, which could not be undone: the run is kept beside it. Deleting the
// earlier run first, a move that failed (a raw that is the user's symlink) lost both runs.
func (s *Staging) replace(earlier, merge []string) error {
	names := stagedNames(s.dir, merge)
	if len(names) == 0 {
		// Its staging directory gone (removed by hand, or out moved away): publishing nothing
		// would only delete the earlier run (review, helper-69).
		return fmt.Errorf("publish the run into %s: its staging directory %s is gone or empty: nothing to publish, "+
			"and the earlier run stays", s.out, s.dir)
	}
	// Locked while the publish lives: one that dies half-way leaves the earlier run's files here,
	// which the next run's sweep makes visible (recoverAside).
	aside, lock, err := makeLocked(s.out, asidePrefix)
	if err != nil {
		return s.Keep(fmt.Errorf("publish the run into %s: %w", s.out, err))
	}
	if lock != nil {
		defer lock.Close()
	}
	var movedIn, madeIn []string
	users := s.replacedFiles(names, earlier)
	movedAside, _, err := moveEntries(s.out, aside, append(earlier, users...), os.Rename)
	if err == nil {
		err = s.inTheWay(names)
	}
	if err == nil {
		movedIn, madeIn, err = moveEntries(s.dir, s.out, names, renameIn)
	}
	if err == nil {
		s.keepReplaced(aside, earlier, users)
		return os.RemoveAll(s.dir)
	}
	err = fmt.Errorf("publish the run into %s: %w", s.out, err)
	_, _, backIn := moveEntries(s.out, s.dir, movedIn, os.Rename)
	results.RemoveMadeDirs(madeIn)
	_, _, backAside := moveEntries(aside, s.out, movedAside, os.Rename)
	if backIn != nil || backAside != nil {
		return s.Keep(fmt.Errorf("%w; putting the runs back failed too (%v), so some of the earlier run's files are in %s and "+
			"some of the new run's in %s", err, errors.Join(backIn, backAside), aside, s.out))
	}
	_ = os.RemoveAll(aside) // empty, but for the directories a merge's files were moved aside into
	return s.Keep(err)
}

// inTheWay refuses a publish where out still has an entry of a staged name once the earlier run
// and the replaced files are aside: the user's directory, which a rename does not replace.
func (s *Staging) inTheWay(names []string) error {
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(s.out, name)); err == nil {
			return fmt.Errorf("%s is there already as a directory, not a run's, where the run has an entry of that name",
				filepath.Join(s.out, name))
		}
	}
	return nil
}
