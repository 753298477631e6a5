package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim/experiment"
	"github.com/qjump-net/qjump/internal/sim/tcp"
	"github.com/qjump-net/qjump/internal/sim/workload"
	"github.com/qjump-net/qjump/internal/version"
)

type simFCTOptions struct {
	fabric   *fabricFlags
	scheme   string
	workload string
	load     float64
	flows    int
	seed     uint64
	steady   bool
	out      string
	json     bool
}

func newSimFCTCommand() *cobra.Command {
	opts := &simFCTOptions{fabric: newFabricFlags(), load: 0.5}
	cmd := &cobra.Command{
		Use:   "fct --scheme S --workload W --load L --flows N [--seed S] [--steady] [--out DIR]",
		Short: "Simulate one flow-completion-time point: a scheme, a workload, a load",
		Long: `fct runs Poisson flow arrivals at an offered load (a fraction of the hosts' edge capacity)
with sizes from a workload CDF between random distinct hosts, until every flow has completed (at
most 10 simulated seconds after the last arrival: a flow not done by then is counted unfinished,
which the output reports as a measurement fault), and prints the paper's statistics of FCT
normalised to the ideal FCT on the idle fabric: small flows (0, 100kB] average and 99th
percentile, large flows (10MB, ∞) average, and all flows.

Arrivals stop at the N-th flow, so the flows still running then finish in a network that
empties: cheap, and kind to large flows, which spend much of their life there. With --steady,
flows go on arriving as uncounted background until the last of the N has finished, so every
flow runs at the load it was drawn for: the faithful measure of large flows, at 4 to 30 times
the wall time at load 0.8, where under pFabric a large flow waits behind every smaller one (see
docs/reproducing.md, "What a point measures"). Small flows hardly move either way.

Schemes: tcp (NewReno, drop-tail, 150-packet buffers, min RTO 200µs), dctcp (K=65, g=1/16;
a --buffer of 65 or less, where no packet would ever be marked, is refused), pfabric
(remaining-size priorities, 24-packet buffers, RTO 45µs, SACK, window ≤ the buffer less one,
23), qjump (the paper's Fig. 9 configuration at 144 hosts: P=9kB, m=1, epoch n·P/R,
f0..f7=144,100,20,10,5,3,2,1; on n hosts f0=n, line rate, f7=1 and the others the paper's,
each at most n; flows on the highest level whose budget per epoch in the paper's configuration
holds them; each level of a host has one budget, which the host's flows and ACKs at that level
share, held to the next epoch like the dataplane's shape mode, each level holding up to the
buffer), and qjump-ns2, not a Fig. 9 scheme: QJump limited as the paper's own ns-2 simulation
did, a budget per flow refilled every 1.05 ms (at 10 Gb/s edges; times 10 Gb/s over
--edge-rate on others) from the flow's start and dropping what does not fit, with the authors'
levels and budgets, ACKs unlimited at the top level and the authors' TCP: SACK, no fast
retransmit, window ≤ 152 (see docs/reproducing.md). A configuration that is valid but probably
not meant (a QJump epoch over a second, K under DCTCP's guideline C·RTT/7) is warned about on
stderr. Workloads: websearch, datamining (embedded) or a CSV file of size_bytes,cdf
rows. With --out, DIR gets flows.csv (one row per flow), results.json and summary.md, in the
results format the testbed uses; qjump sim report DIR redraws them. A DIR holding an earlier
sim fct run gets those three written over; a file of yours of one of those names is moved to
DIR/replaced-TIME, which the run names; a DIR holding another experiment's run is refused
(exit 2). A point still running after
10 s says how far it is on stderr every 10 s; Ctrl-C abandons it (exit 130) and writes nothing.`,
		Example: `  qjump sim fct --scheme qjump --workload websearch --load 0.5 --flows 5000
  qjump sim fct --scheme pfabric --workload datamining --load 0.8 --flows 2000 --out results/pf
  qjump sim fct --scheme pfabric --workload websearch --load 0.8 --flows 10000 --steady
  qjump sim fct --scheme tcp --workload my-cdf.csv --load 0.3 --flows 1000 --racks 2 --hosts-per-rack 4`,
		Args: noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSimFCT(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.scheme, "scheme", "qjump", "tcp, dctcp, pfabric, qjump, or qjump-ns2 (the paper's ns-2 limiter)")
	f.StringVar(&opts.workload, "workload", "websearch", "websearch, datamining or a CDF file")
	f.Var(&unitValue[float64]{&opts.load, parseLoad}, "load", "offered load, a fraction of the edge capacity (0 < L < 1)")
	f.IntVar(&opts.flows, "flows", 5000, fmt.Sprintf("flows to simulate (1 to %d)", experiment.MaxFlows))
	f.Uint64Var(&opts.seed, "seed", 1, "seed of every random stream")
	f.StringVar(&opts.out, "out", "", "directory for flows.csv and results.json")
	f.BoolVar(&opts.steady, "steady", false, "keep flows arriving, uncounted, until the last of the N has finished (see above)")
	f.BoolVar(&opts.json, "json", false, "print results.json instead of the table")
	opts.fabric.register(f)
	return cmd
}

// progressEvery is how often sim fct says how far a point is: a point of the paper's size takes
// seconds and prints nothing, one of a hundred thousand flows takes many minutes.
const progressEvery = 10 * time.Second

// runFCTInterruptible runs one point until ctx is done, with a progress line on stderr at each
// interval of every. A single simulation cannot stop half-way with anything worth keeping, so on
// Ctrl-C it is abandoned and nothing is written.
func runFCTInterruptible(ctx context.Context, c experiment.FCTConfig, stderr io.Writer, every time.Duration) (*experiment.FCTResult, error) {
	type outcome struct {
		res *experiment.FCTResult
		err error
	}
	c.Progress = &experiment.Progress{}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		res, err := experiment.RunFCT(c)
		done <- outcome{res, err}
	}()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case o := <-done:
			return o.res, asFlagError(o.err)
		case <-tick.C:
			fmt.Fprintf(stderr, "%s load %g %s: %s, %.0f s wall\n", c.Workload.Name, c.Load, c.Scheme, c.Progress.Line(c.Flows),
				time.Since(start).Seconds())
		case <-ctx.Done():
			started, finished := c.Progress.Flows()
			return nil, interruptedError(ctx, "the point had not finished (%d of %d flows completed, %d started); nothing written", finished, c.Flows, started)
		}
	}
}

func runSimFCT(ctx context.Context, opts *simFCTOptions, stdout, stderr io.Writer) error {
	scheme, err := experiment.ParseScheme(opts.scheme)
	if err != nil {
		return usageErrorf("invalid --scheme %q: %v", opts.scheme, err)
	}
	cdf, err := workload.Load(opts.workload)
	if err != nil {
		return usageErrorf("invalid --workload %q: %v (or websearch, datamining)", opts.workload, err)
	}
	fab, err := opts.fabric.config()
	if err != nil {
		return err
	}
	warn(stderr, opts.fabric.warnings())
	cfg := experiment.FCTConfig{Scheme: scheme, Workload: cdf, Load: opts.load, Flows: opts.flows, Seed: opts.seed, Fabric: fab,
		Steady: opts.steady}
	if err := cfg.Validate(); err != nil {
		return opts.fabric.typed.flagError(err) // a rate as the user typed it: "2T", not "2Tb/s"
	}
	// After Validate, which refuses the padding when it pushes the load to 1 or more.
	warnRounding(stderr, opts.workload, cdf)
	warn(stderr, cfg.Warnings())
	// Every flag is checked before anything is made or simulated.
	removeIfEmpty := func() {}
	if opts.out != "" {
		if removeIfEmpty, err = makeOutDir(opts.out, experiment.ExperimentFCT); err != nil {
			return err
		}
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	start := time.Now()
	res, err := runFCTInterruptible(ctx, cfg, stderr, progressEvery)
	if err != nil {
		removeIfEmpty()
		return err
	}
	points := []*experiment.FCTResult{res}
	doc := experiment.NewFCTDocument(results.Header{
		Experiment: experiment.ExperimentFCT, Started: start, DurationS: time.Since(start).Seconds(), Build: version.Get(),
		Title: fmt.Sprintf("Flow completion times: %s, %s at load %g", scheme, cdf.Name, opts.load),
	}, experiment.Fig9Config{Workloads: []string{cdf.Name}, Loads: []float64{opts.load}, Schemes: []experiment.Scheme{scheme},
		Flows: map[string]int{cdf.Name: opts.flows}, Seed: opts.seed, Fabric: fab, Steady: opts.steady}, points)
	if opts.out != "" {
		if _, err := experiment.Publish(opts.out, doc.Experiment, false, func(dir string) error { return experiment.WriteFCT(dir, doc, points) }, stderr); err != nil {
			return err
		}
	} else {
		doc.Fill(points)
	}
	warn(stderr, doc.OfferedWarnings())
	if opts.json {
		return printJSON(stdout, doc)
	}
	if err := doc.View().Table(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "load %g drawn for, %s offered by the %s (their bytes over the hosts' capacity until the last arrival)\n",
		res.Load, experiment.LoadText(res.RealisedLoad), experiment.CountText(len(res.Flows), "flow"))
	fmt.Fprintln(stdout, experiment.PerfLine(res.Perf))
	return nil
}

// parseLoad reads --load for unitValue: a value that is no number is refused with what --load
// takes, not with strconv's parse error (the range is checked with the other flags).
func parseLoad(s string) (float64, error) {
	f, err := model.ParseDecimal(strings.TrimSpace(s))
	if err != nil {
		return 0, errors.New("need a fraction of the edge capacity, 0 < L < 1, e.g. 0.5")
	}
	return f, nil
}

// warnRounding says when drawing sizes in whole packets makes a CDF's flows offer noticeably more
// than --load: the arrival rate comes from the CDF's mean (the pFabric scripts' way, 0.04 % more
// on web search), and a CDF of flows under a packet offers several times the load.
func warnRounding(stderr io.Writer, name string, cdf *workload.CDF) {
	drawn := cdf.DrawnMean()
	if ratio := drawn / cdf.Mean(); ratio > 1.01 {
		fmt.Fprintf(stderr, "qjump: warning: --workload %s: sizes are drawn in whole %d-byte packets, so its flows average %.0f B "+
			"against the CDF's %.0f B and offer %.3g times --load\n", name, tcp.MSS, drawn, cdf.Mean(), ratio)
	}
}
