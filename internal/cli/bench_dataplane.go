package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

type benchDataplaneOptions struct {
	packets, rounds, seconds int
	rate                     model.Rate
	skipThroughput           bool
	json                     bool
}

type benchDataplaneJSON struct {
	Program    dataplane.ProgramCost     `json:"program"`
	Throughput *dataplane.ThroughputCost `json:"throughput"`
}

func newBenchDataplaneCommand(runF func(*benchDataplaneOptions) error) *cobra.Command {
	opts := &benchDataplaneOptions{rate: dataplane.DefaultBenchRate}
	cmd := &cobra.Command{
		Use:   "dataplane [--json]",
		Short: "Measure the per-packet cost and the throughput cost of QJump's eBPF program",
		Long: `dataplane measures what QJump costs, in two ways.

Per packet: BPF_PROG_TEST_RUN runs QJump's program on a 64-byte UDP frame at a limited level
(classify, charge the budget by compare-and-swap, mark, count), side by side with two floors: an empty
program (the harness) and one that only reads bpf_ktime_get_ns, which QJump must read once for
every packet it charges. Every packet is its own BPF_PROG_TEST_RUN call for every program, so the
kernel builds a fresh skb each time and QJump rewrites the DSCP mark of every packet, as on real
traffic; the programs take turns packet by packet. It prints the medians, QJump's ratio to the
clock-only floor, and three variants: shape mode (no budget charged, so no clock read), an
unlimited level (bulk, as level 0 is by default: nothing charged, no clock read, DSCP 0 already
right) and police mode with a cgroup ceiling set, where one can be set for qjump's own cgroup (not
under ip netns exec, which hides the cgroup hierarchy: the output then says why the row is missing).

Throughput: iperf3 TCP between two network namespaces over a veth pair, in turns without QJump,
under the cap alone and with QJump attached (every level unlimited, so what is measured is the
program and its tree, not a budget). QJump keeps the queue in the host: its tree's root caps the
device at Rcap, R or the device's speed if that is lower (with the default --rate, the veth's
nominal 10 Gb/s). "Cap alone" is a plain HTB at that Rcap and the root's burst: what any scheduler
that keeps the queue in the host costs. The target is QJump against the cap alone. Against the
device as it is, the cap also costs what a veth carries beyond its nominal speed, which a real
NIC does not. It prints each round and the ratios
of the medians. Needs root and iperf3; the namespaces (qjdp-bench-<pid>-a/b) are removed
afterwards, also on Ctrl-C. Timing is noisy on a busy host: compare the ratios, which are measured
side by side.`,
		Example: `  sudo qjump bench dataplane
  sudo qjump bench dataplane --rounds 5 --seconds 3 --json
  sudo qjump bench dataplane --skip-throughput --rounds 7     # the per-packet figures alone
  sudo qjump bench dataplane --rate 5G                        # a root that caps below the device's speed`,
		Args: noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runBenchDataplane(cmd.Context(), opts, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&opts.packets, "packets", 20000, "packets per program per round, each its own BPF_PROG_TEST_RUN")
	fs.IntVar(&opts.rounds, "rounds", 5, "rounds: each program, and each arm of the throughput comparison, once per round")
	fs.IntVar(&opts.seconds, "seconds", 2, "seconds of iperf3 per throughput measurement")
	fs.Var(&unitValue[model.Rate]{&opts.rate, model.ParseRate}, "rate",
		"R that the throughput part brings QJump up with, e.g. 5G: at or above the device's speed (the veth's 10G) the root runs at the device's speed; below it the root caps at R and cuts GSO packets into frames")
	fs.BoolVar(&opts.skipThroughput, "skip-throughput", false, "only the per-packet figures (no namespaces, no iperf3)")
	fs.BoolVar(&opts.json, "json", false, "print one JSON object instead of tables")
	return cmd
}

func runBenchDataplane(ctx context.Context, opts *benchDataplaneOptions, stdout io.Writer) error {
	switch {
	case opts.packets < 1:
		return usageErrorf("invalid --packets %d: need at least 1", opts.packets)
	case opts.rounds < 1:
		return usageErrorf("invalid --rounds %d: need at least 1", opts.rounds)
	case opts.seconds < 1:
		return usageErrorf("invalid --seconds %d: need at least 1", opts.seconds)
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	var out benchDataplaneJSON
	var err error
	if out.Program, err = dataplane.BenchProgram(opts.packets, opts.rounds); err != nil {
		return dataplaneError(err)
	}
	if !opts.skipThroughput {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find qjump binary: %w", err)
		}
		t, err := dataplane.BenchThroughput(ctx, dataplane.ThroughputOptions{Rounds: opts.rounds, Seconds: opts.seconds, Qjump: self, Rate: opts.rate})
		if err != nil {
			return err
		}
		out.Throughput = &t
	}
	if opts.json {
		return printJSON(stdout, out)
	}
	return printBenchDataplane(stdout, out)
}

func printBenchDataplane(w io.Writer, out benchDataplaneJSON) error {
	p := out.Program
	fmt.Fprintf(w, "BPF_PROG_TEST_RUN, a fresh 64-byte UDP frame per run, police mode on a limited level but where a row says otherwise, median of %d rounds of %d packets\n", p.Rounds, p.Packets)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROGRAM\tNS/PACKET")
	fmt.Fprintf(tw, "empty\t%.0f\n", p.EmptyNs)
	fmt.Fprintf(tw, "clock only\t%.0f\n", p.ClockNs)
	fmt.Fprintf(tw, "qjump\t%.0f\n", p.QJumpNs)
	fmt.Fprintf(tw, "qjump, shape mode (no charge)\t%.0f\n", p.ShapeNs)
	fmt.Fprintf(tw, "qjump, an unlimited level (bulk)\t%.0f\n", p.UnlimitedNs)
	if p.CeilingNs != nil {
		fmt.Fprintf(tw, "qjump, a cgroup ceiling set\t%.0f\n", *p.CeilingNs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if p.CeilingSkipped != "" {
		fmt.Fprintf(w, "no row for qjump with a cgroup ceiling set: %s\n", p.CeilingSkipped)
	}
	fmt.Fprintf(w, "qjump / clock only = %.2f× (target ≤ 1.30×)\n", p.Ratio)
	if t := out.Throughput; t != nil {
		fmt.Fprintf(w, "\niperf3 TCP over a veth pair, %d rounds of %d s: without QJump, under the cap alone (a plain HTB at Rcap = %.0f Gb/s, burst %d B), with QJump (all levels unlimited)\n",
			t.Rounds, t.Seconds, t.CapRateBps/1e9, t.CapBurstBytes)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ROUND\tWITHOUT\tCAP ALONE\tWITH")
		for i := range t.WithoutBps {
			fmt.Fprintf(tw, "%d\t%.2f Gb/s\t%.2f Gb/s\t%.2f Gb/s\n", i+1, t.WithoutBps[i]/1e9, t.CapBps[i]/1e9, t.WithBps[i]/1e9)
		}
		fmt.Fprintf(tw, "median\t%.2f Gb/s\t%.2f Gb/s\t%.2f Gb/s\n", t.MedianWithoutBps/1e9, t.MedianCapBps/1e9, t.MedianWithBps/1e9)
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(w, "with / cap alone = %.1f%% (target ≥ 98%%)\n", 100*t.Ratio)
		fmt.Fprintf(w, "with / without = %.1f%% (the cap at Rcap included)\n", 100*t.RatioToWithout)
	}
	return nil
}
