package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/results"
	simexp "github.com/qjump-net/qjump/internal/sim/experiment"
	tbexp "github.com/qjump-net/qjump/internal/testbed/experiment"
)

// sim report and testbed report take their DIR the same way. What names no run of theirs (no
// argument or two, nothing, another file, a directory no run wrote, the other tool's run) is bad
// input, exit 2, as the command line is the user's to fix. A run's results.json named instead of
// its directory is taken for the directory. A run's own files that are there but cannot be read
// or parsed are its data gone bad, a failure (exit 1) naming the file.

// reportVerb is one of the report verbs: its name and the experiments it redraws, as results.json
// names them.
type reportVerb struct {
	name        string
	experiments func() []string
}

var (
	simReport = reportVerb{"sim report", func() []string {
		return []string{simexp.ExperimentFCT, simexp.ExperimentFig9, simexp.ExperimentFanIn}
	}}
	testbedReport = reportVerb{"testbed report", tbexp.Names}
)

// reportDirNeeded is what a report's DIR may be.
const reportDirNeeded = "need the directory a run wrote (its --out), or its results.json"

func (v reportVerb) args(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageErrorf("%s needs one DIR, the directory a run wrote (its --out) or its results.json, got %d", v.name, len(args))
	}
	return nil
}

// dir is the run directory that arg names, checked to hold a run this verb redraws.
func (v reportVerb) dir(arg string) (string, error) {
	dir, err := runDir(arg)
	if err != nil {
		return "", err
	}
	var h results.Header
	if err := results.ReadJSON(filepath.Join(dir, "results.json"), &h); err != nil {
		return "", err
	}
	if slices.Contains(v.experiments(), h.Experiment) {
		return dir, nil
	}
	for _, other := range []reportVerb{simReport, testbedReport} {
		if slices.Contains(other.experiments(), h.Experiment) {
			return "", usageErrorf("invalid DIR %q: a run of %s, which qjump %s redraws", arg, h.Experiment, other.name)
		}
	}
	return dir, nil // an experiment no verb knows: the verb's own reader says so
}

// runDir is the directory arg names: itself, or the directory of a results.json. A directory
// that a testbed run wrote without results.json is a run that stopped before its end, which has
// nothing to report, and says so rather than that no run wrote it.
func runDir(arg string) (string, error) {
	if arg == "" {
		return "", usageErrorf("invalid DIR \"\": %s", reportDirNeeded)
	}
	fi, err := os.Stat(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return "", usageErrorf("invalid DIR %q: no such file or directory; %s", arg, reportDirNeeded)
	case err != nil:
		return "", err
	case !fi.IsDir() && filepath.Base(arg) == "results.json":
		return filepath.Dir(arg), nil
	case !fi.IsDir():
		return "", usageErrorf("invalid DIR %q: a file; %s", arg, reportDirNeeded)
	}
	if _, err := os.Stat(filepath.Join(arg, "results.json")); !errors.Is(err, fs.ErrNotExist) {
		return arg, nil // there, or there and unreadable: reading it says which
	}
	for _, partial := range []string{"raw", "stalls.csv"} {
		if _, err := os.Stat(filepath.Join(arg, partial)); err == nil {
			return "", &UsageError{Err: fmt.Errorf("no results.json in %s: the run that wrote it stopped before it finished (interrupted or failed), "+
				"so there is nothing to report; %s keeps what its tools wrote", arg, filepath.Join(arg, "raw"))}
		}
	}
	return "", usageErrorf("invalid DIR %q: no results.json in it; %s (qjump testbed run, qjump sim run, qjump sim fct --out)", arg, reportDirNeeded)
}
