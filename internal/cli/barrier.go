package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/apps/barrier"
)

type barrierOptions struct {
	barrier.Options
	out   string // the rounds CSV; stdout if empty
	ready string // a file created once listening
}

// newBarrierCommand is the barrier benchmark of the barrier experiment (Fig. 3c), a hidden verb so
// that the same binary runs it inside every testbed namespace. Its CSV is documented in
// docs/testbed.md.
func newBarrierCommand(runF func(*barrierOptions) error) *cobra.Command {
	opts := &barrierOptions{Options: barrier.Options{Rounds: 10_000, For: time.Minute, Size: 64,
		Timeout: time.Second, Connect: 10 * time.Second}}
	cmd := &cobra.Command{
		Use:    "barrier --id I --peers A,B,... [--rounds N] [--for D] [--out FILE] [--ready FILE]",
		Short:  "Naiad-style barrier: every round, message every peer and wait for all of theirs (used by the testbed)",
		Hidden: true,
		Args:   noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runBarrier(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.ID, "id", 0, "this participant: its index in --peers")
	f.StringSliceVar(&opts.Peers, "peers", nil, "every participant's address:port, comma-separated, in id order")
	f.StringVar(&opts.Listen, "listen", "", "listen here instead of this participant's --peers entry (e.g. :PORT)")
	f.IntVar(&opts.Rounds, "rounds", opts.Rounds, "rounds to run at most")
	f.DurationVar(&opts.For, "for", opts.For, "run this long at most")
	f.IntVar(&opts.Size, "size", opts.Size, "message bytes")
	f.DurationVar(&opts.Interval, "interval", 0, "pause between rounds (default: none)")
	f.DurationVar(&opts.Timeout, "timeout", opts.Timeout, "a round that takes longer fails")
	f.DurationVar(&opts.Connect, "connect", opts.Connect, "every peer must be connected within this")
	f.StringVar(&opts.out, "out", "", "write one CSV row per round here (default: stdout)")
	f.StringVar(&opts.ready, "ready", "", "create this file once listening")
	_ = cmd.MarkFlagRequired("peers")
	return cmd
}

func runBarrier(ctx context.Context, opts *barrierOptions, stdout, stderr io.Writer) error {
	if err := opts.Validate(); err != nil {
		return asFlagError(err)
	}
	listen := opts.Listen
	if listen == "" {
		listen = opts.Peers[opts.ID]
	}
	opts.Ready = readyFile(opts.ready, listen, stderr)
	run := func(ctx context.Context) ([]barrier.Round, error) { return barrier.Run(ctx, opts.Options) }
	// The rounds before a timeout are data: keep them.
	return probeRun(ctx, opts.out, stdout, always, run, barrier.WriteCSV)
}
