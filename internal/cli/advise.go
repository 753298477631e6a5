package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/publish"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testbed/experiment"
)

type adviseOptions struct {
	program string
	target  experiment.AdviseTarget
	flags   *testbedFlags
	quick   bool
	out     string
	bulkCC  string
	json    bool
	// typed is --throughput as typed, for a refusal against the --rate's bound.
	typed typedTexts
}

// newAdviseCommand is `qjump advise`: the paper's §6.5 choice of a factor, measured on the
// testbed instead of read off a plot.
func newAdviseCommand(runF func(*adviseOptions) error) *cobra.Command {
	opts := &adviseOptions{flags: newTestbedFlags()}
	cmd := &cobra.Command{
		Use:   "advise --p99 D and/or --throughput N [--program memcached] [--quick]",
		Short: "Measure a program on the testbed and print the smallest QJump factor that meets its target",
		Long: `advise runs the memcached-sweep experiment (memcached at level 5, level 5's factor swept from
one packet per epoch to line rate, bulk iperf3 at level 0 through the same switch ports), takes
the smallest factor whose measurement with bulk traffic meets the target, and runs that factor
again to confirm it (the next larger one if the rerun misses). It prints each factor's level
rate T5 = f·P·8/E, the model's throughput cap, the model's latency bound D5 (guaranteed while
f ≤ m), and what was measured. The sweeps are kept in --out. Needs root, as every testbed does.`,
		Example: `  qjump advise --p99 1ms
  qjump advise --throughput 3000 --quick
  qjump advise --p99 500us --throughput 2000 --out results/advise-memcached`,
		Args: noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runAdvise(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	opts.flags.register(cmd.Flags())
	f := cmd.Flags()
	hosts, fewest := experiment.HostsOf("memcached-sweep")
	f.Lookup("hosts").Usage = fmt.Sprintf("number of hosts, n, from %d (the sweep's fewest) to %d (default %d)", fewest, testbed.MaxHosts, hosts)
	f.StringVar(&opts.program, "program", "memcached", "the program to measure (memcached)")
	f.Var(&unitValue[time.Duration]{&opts.target.P99, positiveDuration("need a latency above 0, with a unit, e.g. 500us, 1ms")}, "p99",
		"target: p99 request latency at most this, above 0, e.g. 1ms")
	f.Var(&unitValue[float64]{&opts.target.Throughput, positiveNumber("need a plain number of requests per second above 0, without a unit, e.g. 2000 (not 2k)")}, "throughput",
		"target: at least this many requests per second, above 0 and at most what the link carries\n"+
			"(about 12000 at the default 100M; R/8 over 1041 wire bytes a request), e.g. 2000")
	opts.typed.keep(f, "throughput")
	f.BoolVar(&opts.quick, "quick", false, "a shorter sweep (4 factors, 1.5 s each)")
	f.StringVar(&opts.out, "out", "", "directory for the sweeps (default: a new results/advise-TIME, -N after it where a run of the same second has that name)")
	f.StringVar(&opts.bulkCC, "bulk-cc", "cubic", bulkCCUsage)
	f.BoolVar(&opts.json, "json", false, "print the advice as JSON")
	return cmd
}

func runAdvise(ctx context.Context, opts *adviseOptions, stdout, stderr io.Writer) error {
	if opts.program != "memcached" {
		return usageErrorf("invalid --program %q: memcached is the program advise can measure", opts.program)
	}
	o := experiment.Options{Quick: opts.quick, OutDir: opts.out, BulkCC: opts.bulkCC, Testbed: opts.flags.cfg}
	checked, err := experiment.CheckAdvise(o, opts.target)
	if errors.Is(err, experiment.ErrNoTarget) {
		return usageErrorf("advise needs a target: --p99 D (the p99 latency to meet), --throughput N (the requests per second), or both, e.g. qjump advise --p99 1ms")
	}
	if err != nil {
		return opts.typed.flagError(err) // --throughput 1e300 as typed, not 1e+300
	}
	out, removeIfEmpty, err := runOutDir(o.OutDir, filepath.Join("results", "advise"), "advise")
	if err != nil {
		return err
	}
	o.OutDir = out
	checked = checked.InDir(out)
	warn(stderr, opts.flags.warnings())
	ctx, stdout, progress, stop := stoppableRun(ctx, stdout, stderr)
	defer stop()
	a, err := experiment.Advise(ctx, checked, progress)
	if err != nil {
		removeIfEmpty() // what advise made goes, where it is empty: a stopped advise published nothing
	}
	if _, kept := publish.Kept(err); err != nil && ctx.Err() != nil && !kept { // kept files were written: the error says where
		return interruptedRun(ctx, "advise", o.OutDir)
	}
	if a == nil {
		return err
	}
	var perr error
	if opts.json {
		perr = printJSON(stdout, a)
	} else {
		perr = a.Table(stdout)
	}
	if errors.Is(err, experiment.ErrNoFactor) {
		return fmt.Errorf("advise: %w", err)
	}
	return errors.Join(err, perr)
}
