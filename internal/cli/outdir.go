package cli

// A run's output directory: --out as given, or a new one of its own.

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/qjump-net/qjump/internal/publish"
	"github.com/qjump-net/qjump/internal/results"
)

// outAllowed is what --out takes in the verbs that write a run's directory.
const outAllowed = "need a directory that exists or can be made, and that this user can write in"

// makeOutDir makes --out before anything is simulated and checks that a file can be written in
// it, so a path that cannot hold the results is refused at once rather than after minutes of
// simulation. The returned function removes the directories makeOutDir made, --out and the
// parents it lacked, deepest first, where they are still empty: a run interrupted before its
// first point finished, or one that failed early, leaves nothing behind. A directory holding
// another experiment's run is refused; one holding the same experiment's is taken: the
// simulator's runs (experiment.Publish) and the testbed's stage their files and replace that
// run only once they have written every file, so that a run that writes nothing leaves it as
// it was.
func makeOutDir(out, experiment string) (removeIfEmpty func(), err error) {
	if other := results.ExperimentIn(out); other != "" && other != experiment {
		return nil, usageErrorf("invalid --out %q: it holds a %s run (its results.json), which this %s run would mix with: "+
			"give another directory, or remove that one", out, other, experiment)
	}
	fi, statErr := os.Stat(out)
	if statErr == nil && !fi.IsDir() {
		return nil, usageErrorf("invalid --out %q: it is a file; %s", out, outAllowed)
	}
	made, err := results.MakeDirs(out)
	removeIfEmpty = func() { results.RemoveMadeDirs(made) }
	if err != nil {
		removeIfEmpty()
		return nil, usageErrorf("invalid --out %q: cannot make the directory (%v); %s", out, errors.Unwrap(err), outAllowed)
	}
	probe, err := os.CreateTemp(out, ".qjump-out-*")
	if err != nil {
		removeIfEmpty()
		return nil, usageErrorf("invalid --out %q: cannot write in it (%v); %s", out, errors.Unwrap(err), outAllowed)
	}
	probe.Close()
	os.Remove(probe.Name())
	return removeIfEmpty, nil
}

// runOutDir is the run's directory: --out (given) as makeOutDir takes it, or without one a new
// directory base-TIME (results/NAME-TIME), with -N after it where another run of the same second
// has that name (publish.MakeTimedDir). Named by the second alone, a loop of runs over seeds put
// two runs into one directory, the second replacing the first (review, helper-71). removeIfEmpty
// is makeOutDir's.
func runOutDir(given, base, experiment string) (out string, removeIfEmpty func(), err error) {
	if given != "" {
		removeIfEmpty, err = makeOutDir(given, experiment)
		return given, removeIfEmpty, err
	}
	made, err := results.MakeDirs(filepath.Dir(base))
	removeIfEmpty = func() { results.RemoveMadeDirs(made) }
	if err == nil {
		out, err = publish.MakeTimedDir(base + "-")
	}
	if err != nil {
		removeIfEmpty()
		return "", nil, usageErrorf("cannot make the default output directory %s-TIME (%v): give one with --out DIR; %s",
			base, unwrapped(err), outAllowed)
	}
	made = append([]string{out}, made...)
	return out, removeIfEmpty, nil
}

// unwrapped is err's cause without the operation and path an *fs.PathError adds ("not a
// directory"), which the message says in its own words.
func unwrapped(err error) error {
	if cause := errors.Unwrap(err); cause != nil {
		return cause
	}
	return err
}
