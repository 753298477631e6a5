package cli

import (
	"errors"
	"io"
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
		Short:   "Redraw an experiment's plots, summary.md and table from its results",
		Example: `  qjump testbed report results/ping-iperf-20261122-030000`,
		Long: `report rebuilds the statistics, targets, plots and summary.md of DIR, the directory qjump
testbed run wrote (its --out), from its samples.csv and results.json, and prints the table the run
printed. fan-in, 2pc and memcached-sweep need only results.json: a run of theirs without its
samples.csv (docs/results commits none) is redrawn from it; the others need every sample. DIR may
be named by its results.json. A DIR that holds no testbed run is bad input (exit 2); a run's file
that cannot be read or parsed is a failure (exit 1) naming it, and so is a run with faults, after
its table.`,
		Args: testbedReport.args,
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
	dir, err := testbedReport.dir(opts.dir)
	if err != nil {
		return err
	}
	res, err := experiment.Report(dir)
	if err != nil && !errors.Is(err, experiment.ErrFaults) {
		return err
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
