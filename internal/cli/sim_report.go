package cli

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/sim/experiment"
)

type simReportOptions struct {
	dir  string
	json bool
}

// newSimReportCommand is the simulator's report verb. It is not qjump testbed report: the
// testbed's rebuilds from samples.csv, the simulator's from flows files (fct, fig9) or the series
// of results.json (fan-in); both draw through internal/results, so their tables, summary.md and
// plots look the same.
func newSimReportCommand() *cobra.Command {
	opts := &simReportOptions{}
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Redraw a simulator run's plots, summary.md and table from its files",
		Long: `report rebuilds what qjump sim fct --out and qjump sim run wrote into DIR: for fct and fig9 the
statistics from the flows files (flows.csv or flows/*.csv), for fan-in from results.json's series
(the probes themselves are not kept); then results.json, summary.md and the plots, and prints
the table the run printed. A panel that has no point in results.json is removed, not left from
an earlier run; the flows files are only read. DIR may be named by its results.json. A DIR that holds no simulator run
is bad input (exit 2); a run's file that cannot be read or parsed is a failure (exit 1) naming it.`,
		Example: `  qjump sim report docs/results/sim-fig9`,
		Args:    simReport.args,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = args[0]
			return runSimReport(opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print results.json instead of the table")
	return cmd
}

func runSimReport(opts *simReportOptions, stdout io.Writer) error {
	dir, err := simReport.dir(opts.dir)
	if err != nil {
		return err
	}
	v, err := experiment.Report(dir)
	if err != nil {
		return err
	}
	if opts.json {
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	return v.Table(stdout)
}
