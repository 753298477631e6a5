package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim/experiment"
)

type simRunOptions struct {
	quick   bool
	out     string
	workers int
	flows   int
	hosts   []int
	seed    uint64
	json    bool
}

func newSimRunCommand() *cobra.Command {
	opts := &simRunOptions{}
	cmd := &cobra.Command{
		Use:   "run fig9|fan-in [--quick] [--out DIR]",
		Short: "Run one of the paper's simulated experiments (Fig. 9, Fig. 11)",
		Long: `run runs a whole experiment, its points in parallel on --workers goroutines (the result does
not depend on how many), and writes into DIR:

  fig9    both workloads, loads 0.1 to 0.8, the four schemes: fig9a..f.png (the paper's six
          panels), results.json (every point's series and speed), summary.md, and
          flows/WORKLOAD-LOAD-SCHEME.csv (one row per flow). 10,000 web-search and 3,000
          data-mining flows per point (1,000 and 500, loads 0.2, 0.5, 0.8 with --quick).
  fan-in  Fig. 11 at scale: every host sends its whole level-7 budget of 256-byte probes at each
          of its epochs to one host beside bulk level-0 traffic, f7 from 0.5 to 4, at 144 and 60
          hosts, with random epoch phases (mesochronous hosts) and with aligned epochs (every
          budget in one burst, the worst case); fanin-N.png, fanin-N-aligned.png,
          results.json, summary.md. At least 10^6 probes per point
          (10^5 with --quick).
results.json and summary.md are the testbed's results format (internal/results);
qjump sim report DIR redraws the plots, summary.md and table from the files.`,
		Example: `  qjump sim run fig9 --quick --out results/fig9-quick
  qjump sim run fig9 --out results/fig9
  qjump sim run fan-in --out results/fanin`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSimRun(opts, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.quick, "quick", false, "fewer flows, loads and points (for CI)")
	f.StringVar(&opts.out, "out", "", "output directory (default: results/sim-NAME-TIME)")
	f.IntVar(&opts.workers, "workers", 2, "points simulated at once (one core each)")
	f.IntVar(&opts.flows, "flows", 0, "fig9: flows per point for both workloads (0: 10000 web search and 3000 data mining; 1000 and 500 with --quick)")
	f.IntSliceVar(&opts.hosts, "hosts", []int{144, 60}, "fan-in: host counts to run")
	f.Uint64Var(&opts.seed, "seed", 1, "seed of every random stream")
	f.BoolVar(&opts.json, "json", false, "print results.json instead of the table")
	return cmd
}

func runSimRun(opts *simRunOptions, name string, stdout, stderr io.Writer) error {
	if name != "fig9" && name != "fan-in" {
		return usageErrorf("unknown experiment %q: need fig9 or fan-in", name)
	}
	if opts.workers < 1 {
		return usageErrorf("invalid --workers %d: need at least 1", opts.workers)
	}
	out := opts.out
	if out == "" {
		out = filepath.Join("results", "sim-"+name+"-"+time.Now().Format("20060102-150405"))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	if name == "fig9" {
		return runSimFig9(opts, out, stdout, stderr)
	}
	return runSimFanIn(opts, out, stdout, stderr)
}

func runSimFig9(opts *simRunOptions, out string, stdout, stderr io.Writer) error {
	c := experiment.DefaultFig9(opts.quick)
	c.Workers, c.Seed = opts.workers, opts.seed
	if opts.flows > 0 {
		for w := range c.Flows {
			c.Flows[w] = opts.flows
		}
	}
	start := time.Now()
	res, err := experiment.RunFig9(c, func(r *experiment.FCTResult) {
		fmt.Fprintf(stderr, "%s load %.1f %s: %s\n", r.Workload, r.Load, r.Scheme, experiment.PerfLine(r.Perf))
	})
	if err != nil {
		return err
	}
	doc := experiment.NewFCTDocument(results.Header{
		Experiment: experiment.ExperimentFig9, Quick: opts.quick, Started: start, DurationS: time.Since(start).Seconds(),
		Title: "Fig. 9: flow completion times of TCP, DCTCP, pFabric and QJump on the 144-host fabric",
	}, c, res.Points)
	if err := experiment.WriteFCT(out, doc, res.Points); err != nil {
		return err
	}
	if opts.json {
		return printJSON(stdout, doc)
	}
	if err := doc.View().Table(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d points in %.1fs on %d workers; results in %s\n", len(res.Points), time.Since(start).Seconds(), c.Workers, out)
	return nil
}

func runSimFanIn(opts *simRunOptions, out string, stdout, stderr io.Writer) error {
	var all []*experiment.FanInResult
	start := time.Now()
	var c experiment.FanInConfig
	for _, h := range opts.hosts {
		// Random phases (what m is for), aligned epochs (every host's budget at once) and aligned
		// epochs with two budgets back to back (the police-mode burst the bound counts).
		for _, sweep := range []struct{ aligned, straddle bool }{{false, false}, {true, false}, {true, true}} {
			c = experiment.DefaultFanIn(h, opts.quick)
			c.Workers, c.Seed, c.Aligned, c.Straddle = opts.workers, opts.seed, sweep.aligned, sweep.straddle
			res, err := experiment.RunFanIn(c, func(p experiment.FanInPoint) {
				fmt.Fprintf(stderr, "%d hosts aligned %v straddled %v f7 %.2f: %s\n", h, sweep.aligned, sweep.straddle, p.F7, experiment.PerfLine(p.Perf))
			})
			if err != nil {
				return asFlagError(err)
			}
			all = append(all, res)
		}
	}
	doc := experiment.NewFanInDocument(results.Header{
		Experiment: experiment.ExperimentFanIn, Quick: opts.quick, Started: start, DurationS: time.Since(start).Seconds(),
		Title: "Fig. 11 at scale: level-7 latency under fan-in against the model's bound",
	}, c, all)
	if err := experiment.WriteFanIn(out, doc); err != nil {
		return err
	}
	if opts.json {
		return printJSON(stdout, doc)
	}
	if err := doc.View().Table(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "bound: model.FanIn(7) with m=%d; done in %.1fs; results in %s\n", model.DefaultMesochronous, time.Since(start).Seconds(), out)
	return nil
}
