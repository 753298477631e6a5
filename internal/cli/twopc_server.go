package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/apps/twopc"
)

type twopcServerOptions struct {
	twopc.ServerOptions
	transport string
	out       string // the server's JSON report; stdout if empty
	ready     string // a file created once the server listens
}

func newTwoPCServerCommand(runF func(*twopcServerOptions) error) *cobra.Command {
	opts := &twopcServerOptions{ServerOptions: twopc.ServerOptions{Listen: ":7000", For: 10 * time.Minute,
		Timeout: twopcUDPTimeout, Retries: 5}}
	cmd := &cobra.Command{
		Use:   "server --transport tcp|udp|qjump [--listen ADDR] [--for D] [--out FILE] [--ready FILE]",
		Short: "Answer a coordinator's PREPAREs and decisions; print what it applied as JSON at the end",
		Args:  noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runTwoPCServer(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.transport, "transport", "", "tcp, udp or qjump, as the coordinator's")
	f.StringVar(&opts.Listen, "listen", opts.Listen, "address:port (udp and qjump: the wildcard address also hears broadcasts)")
	f.DurationVar(&opts.For, "for", opts.For, "serve this long at most (or until SIGINT/SIGTERM)")
	f.IntVar(&opts.VoteNoEvery, "vote-no-every", 0, "vote no on every Nth transaction (default: always yes)")
	f.DurationVar(&opts.Timeout, "timeout", opts.Timeout, "udp: retransmission timeout of replies")
	f.IntVar(&opts.Retries, "retries", opts.Retries, "udp: retransmissions of a reply")
	f.StringVar(&opts.out, "out", "", "write the JSON report here (default: stdout)")
	f.StringVar(&opts.ready, "ready", "", "create this file once listening")
	_ = cmd.MarkFlagRequired("transport")
	return cmd
}

func runTwoPCServer(ctx context.Context, opts *twopcServerOptions, stdout, stderr io.Writer) error {
	opts.Transport = twopc.Transport(opts.transport)
	if err := opts.Validate(); err != nil {
		return asFlagError(err)
	}
	opts.Ready = readyFile(opts.ready, opts.Listen, stderr)
	ctx, stop := interruptible(ctx)
	defer stop()
	r, err := twopc.Serve(ctx, opts.ServerOptions)
	if err != nil {
		return err
	}
	return writeTo(opts.out, stdout, func(w io.Writer) error { return twopc.WriteServerJSON(w, r) })
}
