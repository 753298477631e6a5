package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/publish"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testbed/experiment"
)

type testbedRunOptions struct {
	name    string // the experiment
	flags   *testbedFlags
	quick   bool
	out     string
	bulkCC  string
	epsilon time.Duration
	epsSet  bool // --epsilon given: 0 is an ε, not the flag left out
	json    bool
	idle    bool // --let-cpus-idle
	rateSet bool // --rate given; otherwise each experiment runs at its own default rate
}

func newTestbedRunCommand(runF func(*testbedRunOptions) error) *cobra.Command {
	opts := &testbedRunOptions{flags: newTestbedFlags()}
	cmd := &cobra.Command{
		Use:   "run NAME [--quick] [--out DIR]",
		Short: "Run one of the paper's experiments on a fresh testbed",
		Long: `run builds a testbed, runs an experiment with real programs, removes the testbed, and writes
into DIR: samples.csv (every sample), results.json (statistics, targets; fields in
docs/testbed.md), PNG plots and summary.md. It prints progress while running and the summary
table at the end.

Experiments:
  ping-iperf  Table 1 and Fig. 3a: a probe h1→h2 (ping, and our UDP probe with kernel
              timestamps) while iperf3 shares the switch, a host, or the switch queue; then
              with QJump on (probe at level 7, iperf3 at level 0).
  memcached   Fig. 3b: memcached on h2 at level 5, a closed-loop client on h1 (1 kB values,
              90% GET), bulk iperf3 from the other hosts through the same switch ports.
  fan-in      Fig. 11: every host sends level-7 probes at f7 packets per epoch to h1 while
              sending bulk at level 0; f7 from 0.5 to 4, latency against the model's bound.
  ptp         Fig. 5, 7: ptp4l master h1, slave h2, bulk through both of their ports; offset
              timeline per arm and RMS offset normalised to idle.
  2pc         Fig. 6: two-phase commit (1 coordinator, 7 servers) over tcp, udp and qjump
              against a constant and a bursty UDP generator; failure detection time.
  memcached-sweep
              Fig. 10: memcached at level 5 with its factor swept to line rate, throughput and
              p50/p99 with and without bulk (qjump advise picks a factor from it).
  barrier     Fig. 3c: a four-way barrier (level 7) against bulk through its hosts and ports.
  mixed       Fig. 5: PTP at 7, memcached at 5, bulk at 0: alone, together, with QJump.

--rate defaults to 100M, and to 10M for fan-in and ping-iperf: there the model's bound and a
frame time grow tenfold while the emulation's own timer, softirq and CPU delays do not, so that
their strict targets ("no sample over the bound", "QJump's tail within idle's plus one frame")
measure the network, not the machine (docs/testbed.md has the figures).

The machine is part of the measurement: the emulated links are the kernel's timers and softirqs
on this machine's CPUs. For the run, idle CPUs poll instead of halting (a halted vCPU can wait
milliseconds for the hypervisor to wake it; --let-cpus-idle allows it), and a real-time thread
per CPU measures the times a CPU stood still all the same (stalls.csv). fan-in's and ping-iperf's
targets take those measured stalls out of each probe's latency, and show both (docs/testbed.md,
"Machine stalls").

Bulk TCP uses --bulk-cc (default cubic, a loss-based TCP like the paper's; this kernel's default
is bbr, which keeps queues short). QJump is enabled with the real 'qjump up' on every host and
programs are put on levels with 'qjump run'.`,
		Example: `  qjump testbed run ping-iperf --quick
  qjump testbed run memcached --out results/memcached
  qjump testbed run fan-in --hosts 6 --rate 100M
  qjump testbed run ping-iperf --bulk-cc bbr --out results/ping-iperf-bbr`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("testbed run needs one experiment NAME, got %d: one of %s (see qjump testbed run --help)", len(args), strings.Join(experiment.Names(), ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name, opts.rateSet, opts.epsSet = args[0], cmd.Flags().Changed("rate"), cmd.Flags().Changed("epsilon")
			if runF != nil {
				return runF(opts)
			}
			return runTestbedRun(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	opts.flags.register(cmd.Flags())
	f := cmd.Flags()
	// Without --rate each experiment runs at its own default, not at testbed up's 100M: say so
	// rather than let pflag print "(default 100Mb/s)" for every experiment.
	rate := f.Lookup("rate")
	rate.DefValue = ""
	rate.Usage += "\n(default: the experiment's own, 100M; 10M for fan-in and ping-iperf)"
	// Likewise --hosts: each experiment has its own default and fewest (review, helper-72: the help
	// said 2 to 32, and ptp refused 3).
	f.Lookup("hosts").Usage = fmt.Sprintf("number of hosts, n, up to %d\n(default: the experiment's own; each needs at least its fewest: %s)",
		testbed.MaxHosts, experiment.HostsText())
	f.BoolVar(&opts.quick, "quick", false, "fewer samples and a shorter sweep (for CI and make demo)")
	f.StringVar(&opts.out, "out", "", "output directory (default: a new results/NAME-TIME, -N after it where a run of the same second has that name)")
	f.StringVar(&opts.bulkCC, "bulk-cc", "cubic", bulkCCUsage)
	f.Var(&unitValue[time.Duration]{&opts.epsilon, model.ParseDuration}, "epsilon",
		"ε given to qjump up, 0 or more, keeping the epoch at most 1s, e.g. 30us (default: the idle one-way p99 the run measures)")
	opts.flags.typed.keep(f, "epsilon") // a refusal quotes it as typed
	f.BoolVar(&opts.json, "json", false, "print results.json instead of the table")
	f.BoolVar(&opts.idle, "let-cpus-idle", false, "let idle CPUs halt during the run (default: hold them polling, which spares the emulation most of a VM's stalls)")
	return cmd
}

// bulkCCUsage is --bulk-cc's help in every verb that runs bulk flows (testbed run, advise).
const bulkCCUsage = "TCP congestion control of the bulk flows: cubic, reno or bbr"

func runTestbedRun(ctx context.Context, opts *testbedRunOptions, stdout, stderr io.Writer) error {
	name := opts.name
	o, err := opts.experimentOptions()
	if err != nil {
		return err
	}
	checked, err := experiment.Check(name, o)
	if errors.Is(err, experiment.ErrUnknown) {
		return &UsageError{Err: err}
	}
	if err != nil {
		return opts.flags.typed.flagError(err)
	}
	out, removeIfEmpty, err := runOutDir(o.OutDir, filepath.Join("results", name), name)
	if err != nil {
		return err
	}
	o.OutDir = out
	checked = checked.InDir(out)
	warn(stderr, opts.flags.warnings())
	ctx, stdout, progress, stop := stoppableRun(ctx, stdout, stderr)
	defer stop()
	res, err := experiment.Run(ctx, checked, progress)
	if err != nil {
		removeIfEmpty() // what the run made goes, where it is empty: a stopped run published nothing
	}
	var left *testbed.NotRemovedError
	if _, kept := publish.Kept(err); err != nil && ctx.Err() != nil && !kept && errors.As(err, &left) {
		return interruptedError(ctx, "%s stopped; no results written; %v", name, left)
	}
	if _, kept := publish.Kept(err); err != nil && ctx.Err() != nil && !kept { // kept files were written: the error says where
		return interruptedRun(ctx, name, o.OutDir)
	}
	if err != nil && !errors.Is(err, experiment.ErrFaults) {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s\n", strings.Join(prefixAll(o.OutDir, res.Files), " "))
	// A run with faults prints its table, which lists them, and still fails.
	if perr := printResults(stdout, res, o.OutDir, opts.json); perr != nil {
		return perr
	}
	return err
}

func (opts *testbedRunOptions) experimentOptions() (experiment.Options, error) {
	o := experiment.Options{Quick: opts.quick, OutDir: opts.out, BulkCC: opts.bulkCC, LetCPUsIdle: opts.idle}
	o.Testbed = opts.flags.cfg
	if !opts.rateSet {
		o.Testbed.Rate = 0 // the experiment's own default
	}
	o.Epsilon, o.EpsilonGiven = opts.epsilon, opts.epsSet
	return o, nil
}

func prefixAll(dir string, files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Join(dir, f)
	}
	return out
}

// interruptedRun is the error of a run that a signal stopped: it removed its testbed and its
// staging directory, wrote no results and left dir as it was (an earlier run in it whole), and
// exits 130 as every verb stopped by Ctrl-C does (docs/cli.md), not 1 as a failure.
func interruptedRun(ctx context.Context, name, dir string) error {
	if _, err := os.Stat(dir); err != nil { // the run made dir: it was removed
		return interruptedError(ctx, "%s stopped and its testbed removed; no results written", name)
	}
	return interruptedError(ctx, "%s stopped and its testbed removed; no results written (%s left as it was)", name, dir)
}
