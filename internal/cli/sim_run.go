package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/publish"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim/experiment"
	"github.com/qjump-net/qjump/internal/version"
)

type simRunOptions struct {
	quick   bool
	out     string
	workers int
	flows   int
	steady  bool
	hosts   []int
	seed    uint64
	json    bool
	// flowsSet and hostsSet say whether the user gave --flows and --hosts, each of which only
	// one experiment takes.
	flowsSet, hostsSet bool
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
          Arrivals stop at each point's last flow; with --steady they go on, uncounted,
          until every counted flow has finished, so large flows finish at the load they were drawn
          for (see qjump sim fct --help), at several times the wall time.
  fan-in  Fig. 11 at scale: every host sends its whole level-7 budget of 256-byte probes at each
          of its epochs to one host beside bulk level-0 traffic, f7 from 0.5 to 4, at 144 and 60
          hosts, with random epoch phases (mesochronous hosts), with aligned epochs (every
          budget in one burst), and aligned and straddled (each host sends one budget just
          before its epoch ends and the next just after it, the worst case the bound allows);
          fanin-N.png, fanin-N-aligned.png, fanin-N-straddled.png (the three sweeps in that
          order), results.json, summary.md.
          At least 10^6 probes per point (10^5 with --quick).
results.json and summary.md are the testbed's results format (internal/results);
qjump sim report DIR redraws the plots, summary.md and table from the files. Ctrl-C stops the
run: the points that finished are written as above, marked partial, and run exits 130.

The run writes into a staging directory in DIR and moves its files in only once it has written
all of them. A DIR that holds an earlier run of the same experiment then loses that run's files
(those its results.json lists) to the new ones, so no panel or flows file of the earlier run is
left beside the new results.json. A file of yours that a file of the run replaces (your own
summary.md in DIR, with no run beside it) is moved to DIR/replaced-TIME, and the run says so; any
other file in DIR stays, in DIR/flows too. A stopped run
never replaces an earlier one, complete or stopped: where DIR holds a run, the partial run is kept
beside it in DIR/unpublished-TIME, and the message says so. A run stopped before its first point writes
nothing and leaves DIR as it was. A DIR that holds another experiment's run is refused (exit 2).`,
		Example: `  qjump sim run fig9 --quick --out results/fig9-quick
  qjump sim run fig9 --out results/fig9
  qjump sim run fan-in --out results/fanin`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("need one experiment to run, fig9 or fan-in, e.g. qjump sim run fig9 --quick (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.flowsSet, opts.hostsSet = cmd.Flags().Changed("flows"), cmd.Flags().Changed("hosts")
			return runSimRun(cmd.Context(), opts, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.quick, "quick", false, "fewer flows, loads and points (for CI)")
	f.StringVar(&opts.out, "out", "", "output directory (default: a new results/sim-NAME-TIME, -N after it where a run of the same second has that name)")
	f.IntVar(&opts.workers, "workers", 2, "points simulated at once (one core each)")
	f.IntVar(&opts.flows, "flows", 0, fmt.Sprintf("fig9: flows per point for both workloads, at most %d (0: 10000 web search and 3000 data mining; 1000 and 500 with --quick)", experiment.MaxFlows))
	f.IntSliceVar(&opts.hosts, "hosts", []int{144, 60}, "fan-in: host counts to run, each whole racks: a multiple of 16, or of 12")
	f.Uint64Var(&opts.seed, "seed", 1, "seed of every random stream")
	f.BoolVar(&opts.steady, "steady", false, "fig9: keep flows arriving, uncounted, until every counted flow of a point has finished (see qjump sim fct --help)")
	f.BoolVar(&opts.json, "json", false, "print results.json instead of the table")
	return cmd
}

// maxWorkers bounds --workers: more than the points of any sweep, far more than any host's cores.
const maxWorkers = 1024

// check refuses any flag that is wrong for experiment name, before anything is made or simulated.
func (opts *simRunOptions) check(name string) error {
	switch {
	case name != "fig9" && name != "fan-in":
		return usageErrorf("unknown experiment %q: need fig9 or fan-in", name)
	case opts.workers < 1 || opts.workers > maxWorkers:
		return usageErrorf("invalid --workers %d: need 1 to %d (one core each)", opts.workers, maxWorkers)
	case name == "fig9" && opts.hostsSet:
		return usageErrorf("--hosts is for fan-in, not fig9: fig9 runs the paper's 144-host fabric")
	case name == "fan-in" && opts.steady:
		return usageErrorf("--steady is for fig9, not fan-in: fan-in sends probes, not flows")
	case name == "fan-in" && opts.flowsSet:
		return usageErrorf("--flows is for fig9, not fan-in: fan-in sends probes, --quick makes it shorter")
	case opts.flows < 0:
		return usageErrorf("invalid --flows %d: need a number of flows per point, or 0 for the default", opts.flows)
	}
	if name == "fan-in" {
		return checkFanInHosts(opts.hosts)
	}
	return nil
}

// checkFanInHosts refuses an empty list, a host count that is not whole racks, and a count given
// twice (it would run the same sweeps twice and draw them over each other).
func checkFanInHosts(hosts []int) error {
	if len(hosts) == 0 {
		return usageErrorf("invalid --hosts: need at least one host count, e.g. 144,60")
	}
	seen := map[int]bool{}
	for _, h := range hosts {
		if err := experiment.CheckFanInHosts(h); err != nil {
			return asFlagError(err)
		}
		if seen[h] {
			return usageErrorf("invalid --hosts %s: %d is given twice; give each host count once", joinInts(hosts), h)
		}
		seen[h] = true
	}
	return nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// simRunExperiment is the experiment name each run writes in results.json.
var simRunExperiment = map[string]string{"fig9": experiment.ExperimentFig9, "fan-in": experiment.ExperimentFanIn}

func runSimRun(ctx context.Context, opts *simRunOptions, name string, stdout, stderr io.Writer) error {
	if err := opts.check(name); err != nil {
		return err
	}
	if name == "fig9" {
		// Its flows are checked now, before anything is made or simulated.
		if err := opts.fig9Config().Validate(); err != nil {
			return asFlagError(err)
		}
	}
	out, removeIfEmpty, err := runOutDir(opts.out, filepath.Join("results", "sim-"+name), simRunExperiment[name])
	if err != nil {
		return err
	}
	// Ctrl-C stops the sweep: the points that finished are written down as a partial run.
	ctx, stop := interruptible(ctx)
	defer stop()
	if name == "fig9" {
		err = runSimFig9(ctx, opts, out, stdout, stderr)
	} else {
		err = runSimFanIn(ctx, opts, out, stdout, stderr)
	}
	removeIfEmpty()
	return err
}

// interruptedText is results.Header.Interrupted of a sweep stopped after kept of planned points.
func interruptedText(ctx context.Context, kept, planned int) string {
	// "Not run" was wrong for the points the workers had under way, which the stop abandoned
	// (review, helper-71); how many those were, the sweep does not know here.
	return fmt.Sprintf("%v after %d of %d points had finished; the other %d did not finish (those under way were abandoned, "+
		"the rest never started)", context.Cause(ctx), kept, planned, planned-kept)
}

// keptError is what an interrupted sweep exits with: what it kept and where, dir, which is out
// unless out holds an earlier run that the partial one does not replace (experiment.Publish).
func keptError(ctx context.Context, kept, planned int, out, dir string) error {
	if kept == 0 {
		return interruptedError(ctx, "no point had finished; nothing written")
	}
	if dir != out {
		return interruptedError(ctx, "kept the %d of %d points that finished in %s, beside the earlier run in %s, which a partial run "+
			"does not replace (results.json and summary.md say the run is partial; qjump sim report reads either)", kept, planned, dir, out)
	}
	return interruptedError(ctx, "kept the %d of %d points that finished in %s (results.json and summary.md say the run is partial)", kept, planned, out)
}

// stoppedUnpublished is the error of a sweep whose files could not be published (err, which says
// where they are kept, if anywhere): for a sweep that was stopped, still the interrupted exit,
// with how many points it kept, rather than a failure that does not say the run was stopped.
func stoppedUnpublished(ctx context.Context, stopped bool, kept, planned int, err error) error {
	if !stopped {
		return err
	}
	if _, ok := publish.Kept(err); !ok { // nothing written, or nothing left (review, helper-65)
		return interruptedError(ctx, "%d of %d points had finished, but none could be written: %v", kept, planned, err)
	}
	return interruptedError(ctx, "kept the %d of %d points that finished (results.json and summary.md say the run is partial), but %v",
		kept, planned, err)
}

// fig9Config is the sweep the flags ask for.
func (opts *simRunOptions) fig9Config() experiment.Fig9Config {
	c := experiment.DefaultFig9(opts.quick)
	c.Workers, c.Seed, c.Steady = opts.workers, opts.seed, opts.steady
	if opts.flows > 0 {
		for w := range c.Flows {
			c.Flows[w] = opts.flows
		}
	}
	return c
}

func runSimFig9(ctx context.Context, opts *simRunOptions, out string, stdout, stderr io.Writer) error {
	c := opts.fig9Config()
	warn(stderr, c.Warnings())
	start := time.Now()
	count := pointCounter{planned: c.Planned(), start: start}
	res, err := experiment.RunFig9Context(ctx, c, func(r *experiment.FCTResult) {
		fmt.Fprintf(stderr, "%s %s load %g %s: %s\n", count.next(), r.Workload, r.Load, r.Scheme, experiment.PerfLine(r.Perf))
	})
	if err != nil {
		return err
	}
	if len(res.Points) == 0 {
		return keptError(ctx, 0, res.Planned, out, out)
	}
	h := results.Header{
		Experiment: experiment.ExperimentFig9, Quick: opts.quick, Started: start, DurationS: time.Since(start).Seconds(), Build: version.Get(),
		Title: "Fig. 9: flow completion times of TCP, DCTCP, pFabric and QJump on the 144-host fabric",
	}
	if res.Interrupted() {
		h.Interrupted = interruptedText(ctx, len(res.Points), res.Planned)
	}
	doc := experiment.NewFCTDocument(h, c, res.Points)
	dir, err := experiment.Publish(out, doc.Experiment, res.Interrupted(), func(dir string) error { return experiment.WriteFCT(dir, doc, res.Points) }, stderr)
	if err != nil {
		return stoppedUnpublished(ctx, res.Interrupted(), len(res.Points), res.Planned, err)
	}
	if err := printSimRun(stdout, doc, doc.View(), opts.json); err != nil {
		return err
	}
	warn(stderr, doc.OfferedWarnings())
	if res.Interrupted() {
		return keptError(ctx, len(res.Points), res.Planned, out, dir)
	}
	if !opts.json {
		fmt.Fprintf(stdout, "%d points in %.1fs on %s; results in %s\n", len(res.Points), time.Since(start).Seconds(), workersText(c.Workers), out)
	}
	return nil
}

// pointCounter numbers a sweep's progress lines, "[5/64, 1m12s]": how many points have finished
// of those planned, and the time since the sweep started. Points finish one at a time (the
// sweep calls its progress function under a lock), so it needs none of its own.
type pointCounter struct {
	planned, done int
	start         time.Time
}

func (c *pointCounter) next() string {
	c.done++
	return fmt.Sprintf("[%d/%d, %s]", c.done, c.planned, time.Since(c.start).Round(time.Second))
}

// printSimRun prints a run's results.json (--json) or its table.
func printSimRun(stdout io.Writer, doc any, v results.View, json bool) error {
	if json {
		return printJSON(stdout, doc)
	}
	return v.Table(stdout)
}

func workersText(n int) string {
	if n == 1 {
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", n)
}

func runSimFanIn(ctx context.Context, opts *simRunOptions, out string, stdout, stderr io.Writer) error {
	var all []*experiment.FanInResult
	start := time.Now()
	c := experiment.DefaultFanIn(opts.hosts[0], opts.quick)
	// Random phases (what m is for), aligned epochs (every host's budget at once) and aligned
	// epochs with two budgets back to back (the police-mode burst the bound counts).
	sweeps := []struct{ aligned, straddle bool }{{false, false}, {true, false}, {true, true}}
	planned, kept := len(opts.hosts)*len(sweeps)*len(c.Factors), 0
	count := pointCounter{planned: planned, start: start}
	for _, h := range opts.hosts {
		for _, sweep := range sweeps {
			if ctx.Err() != nil {
				break
			}
			c = experiment.DefaultFanIn(h, opts.quick)
			c.Workers, c.Seed, c.Aligned, c.Straddle = opts.workers, opts.seed, sweep.aligned, sweep.straddle
			res, err := experiment.RunFanInContext(ctx, c, func(p experiment.FanInPoint) {
				fmt.Fprintf(stderr, "%s %d hosts, %s, f7 %g: %s\n", count.next(), h, experiment.EpochsText(sweep.aligned, sweep.straddle), p.F7, experiment.PerfLine(p.Perf))
			})
			if err != nil {
				return asFlagError(err)
			}
			if len(res.Points) > 0 {
				all = append(all, res)
				kept += len(res.Points)
			}
		}
	}
	if kept == 0 {
		return keptError(ctx, 0, planned, out, out)
	}
	hd := results.Header{
		Experiment: experiment.ExperimentFanIn, Quick: opts.quick, Started: start, DurationS: time.Since(start).Seconds(), Build: version.Get(),
		Title: "Fig. 11 at scale: level-7 latency under fan-in against the model's bound",
	}
	if kept < planned {
		hd.Interrupted = interruptedText(ctx, kept, planned)
	}
	doc := experiment.NewFanInDocument(hd, c, all)
	dir, err := experiment.Publish(out, doc.Experiment, kept < planned, func(dir string) error { return experiment.WriteFanIn(dir, doc) }, stderr)
	if err != nil {
		return stoppedUnpublished(ctx, kept < planned, kept, planned, err)
	}
	if err := printSimRun(stdout, doc, doc.View(), opts.json); err != nil {
		return err
	}
	if kept < planned {
		return keptError(ctx, kept, planned, out, dir)
	}
	if !opts.json {
		fmt.Fprintf(stdout, "bound: model.FanIn(7) with m=%d; done in %.1fs; results in %s\n", model.DefaultMesochronous, time.Since(start).Seconds(), out)
	}
	return nil
}
