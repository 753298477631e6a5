package cli

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/apps/twopc"
)

// Transport defaults: RAMCloud's 150 ms failure timeout, which the paper cites, for tcp; for udp a
// retransmission timeout that reaches the same 150 ms after five retries.
const (
	twopcTCPTimeout = 150 * time.Millisecond
	twopcUDPTimeout = 25 * time.Millisecond
)

type twopcCoordinatorOptions struct {
	twopc.CoordinatorOptions
	transport string
	summary   string // the summary JSON; stdout if empty
	out       string // the per-transaction CSV; none if empty
}

func newTwoPCCoordinatorCommand(runF func(*twopcCoordinatorOptions) error) *cobra.Command {
	opts := &twopcCoordinatorOptions{CoordinatorOptions: twopc.CoordinatorOptions{Count: 10_000, For: time.Minute,
		Size: 64, Retries: 5, DetectEpochs: 2, Connect: 10 * time.Second}}
	cmd := &cobra.Command{
		Use:   "coordinator --transport tcp|udp|qjump --servers A,B,... [--epoch D] [--summary FILE] [--out FILE]",
		Short: "Run transactions against the servers; print a JSON summary (rate, aborts, failures)",
		Args:  noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runTwoPCCoordinator(cmd.Context(), opts, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.transport, "transport", "", "tcp, udp (acknowledgements and retransmissions) or qjump (no acks, at level 7)")
	f.StringSliceVar(&opts.Servers, "servers", nil, "server address:port, comma-separated, in server order")
	f.StringVar(&opts.Broadcast, "broadcast", "", "qjump: send each message once to this broadcast address:port (default: once to each server)")
	f.IntVar(&opts.Count, "count", opts.Count, "transactions to run at most")
	f.DurationVar(&opts.For, "for", opts.For, "run this long at most")
	f.IntVar(&opts.Size, "size", opts.Size, "PREPARE payload bytes")
	f.DurationVar(&opts.Timeout, "timeout", 0, "tcp: reply deadline (default 150ms); udp: retransmission timeout (default 25ms)")
	f.IntVar(&opts.Retries, "retries", opts.Retries, "udp: retransmissions before a server is declared dead")
	f.DurationVar(&opts.Epoch, "epoch", 0, "qjump: the network epoch, as qjump calc prints it (required with qjump)")
	f.IntVar(&opts.DetectEpochs, "detect-epochs", opts.DetectEpochs, "qjump: epochs without a reply before a server is declared dead")
	f.DurationVar(&opts.Connect, "connect", opts.Connect, "tcp: keep trying to connect to the servers this long")
	f.StringVar(&opts.summary, "summary", "", "write the JSON summary here (default: stdout)")
	f.StringVar(&opts.out, "out", "", "write one CSV row per transaction here")
	_ = cmd.MarkFlagRequired("transport")
	_ = cmd.MarkFlagRequired("servers")
	return cmd
}

func runTwoPCCoordinator(ctx context.Context, opts *twopcCoordinatorOptions, stdout io.Writer) error {
	opts.Transport = twopc.Transport(opts.transport)
	if opts.Timeout == 0 {
		opts.Timeout = map[twopc.Transport]time.Duration{twopc.TCP: twopcTCPTimeout, twopc.UDP: twopcUDPTimeout}[opts.Transport]
	}
	if err := opts.Validate(); err != nil {
		return asFlagError(err)
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	r, err := twopc.Coordinate(ctx, opts.CoordinatorOptions)
	if err != nil && !errors.Is(err, twopc.ErrNoServers) {
		return err // nothing ran
	}
	var werr error
	if opts.out != "" {
		werr = writeTo(opts.out, stdout, func(w io.Writer) error { return twopc.WriteTxnCSV(w, r) })
	}
	werr = errors.Join(werr, writeTo(opts.summary, stdout, func(w io.Writer) error { return twopc.WriteSummary(w, r) }))
	return errors.Join(err, werr)
}
