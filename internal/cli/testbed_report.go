package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/testbed/experiment"
)

type testbedReportOptions struct {
	dir  string // an experiment's output directory
	json bool
}

func newTestbedReportCommand(runF func(*testbedReportOptions) error) *cobra.Command {
	opts := &testbedReportOptions{}
	cmd := &cobra.Command{
		Use:     "report DIR",
		Short:   "Redraw an experiment's plots, summary.md and table from its samples.csv and results.json",
		Example: `  qjump testbed report results/ping-iperf-20261122-030000`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("testbed report needs one DIR, the directory a run wrote (its --out), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runTestbedReport(opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print results.json instead of the table")
	return cmd
}

func runTestbedReport(opts *testbedReportOptions, stdout io.Writer) error {
	dir, err := reportDir(opts.dir)
	if err != nil {
		return err
	}
	res, err := experiment.Report(dir)
	if err != nil && !errors.Is(err, experiment.ErrFaults) {
		return missingIsUsage(err)
	}
	if perr := printResults(stdout, res, dir, opts.json); perr != nil {
		return perr
	}
	return err
}

// printResults is what run and report print: the summary table, or results.json with --json.
func printResults(w io.Writer, res *experiment.Results, dir string, asJSON bool) error {
	if asJSON {
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return experiment.Table(w, res)
}

// reportDir is the directory report reads, from what was named: a run's directory, or its
// results.json (which read "open DIR/results.json/results.json: not a directory", exit 1). A
// directory a run wrote without results.json is a run that stopped before its end, which has
// nothing to report, and says so rather than that no run wrote it.
func reportDir(arg string) (string, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return arg, nil // Report names what is missing
	}
	if !fi.IsDir() {
		if filepath.Base(arg) == "results.json" {
			return filepath.Dir(arg), nil
		}
		return "", usageErrorf("invalid DIR %q: a file; need the directory a run wrote (the one that holds results.json)", arg)
	}
	if _, err := os.Stat(filepath.Join(arg, "results.json")); errors.Is(err, fs.ErrNotExist) {
		for _, partial := range []string{"raw", "stalls.csv"} {
			if _, err := os.Stat(filepath.Join(arg, partial)); err == nil {
				return "", &UsageError{Err: fmt.Errorf("no results.json in %s: the run that wrote it stopped before it finished (interrupted or failed), so there is nothing to report; %s keeps what its tools wrote", arg, filepath.Join(arg, "raw"))}
			}
		}
	}
	return arg, nil
}
