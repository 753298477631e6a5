package cli

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/probe"
)

type probeServerOptions struct {
	probe.ServerOptions
	out   string // the arrivals CSV; stdout if empty
	ready string // a file created once the server listens
}

func newProbeServerCommand(runF func(*probeServerOptions) error) *cobra.Command {
	opts := &probeServerOptions{ServerOptions: probe.ServerOptions{Listen: ":9000", Limit: 1_000_000}}
	cmd := &cobra.Command{
		Use:   "server [--listen ADDR] [--for D] [--out FILE] [--ready FILE]",
		Short: "Answer probe requests and record every arrival (sender, seq, one-way latency)",
		Args:  noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runProbeServer(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Listen, "listen", opts.Listen, "UDP address:port to listen on")
	f.DurationVar(&opts.For, "for", 0, "stop after this long (default: at SIGINT/SIGTERM)")
	f.IntVar(&opts.TOS, "tos", 0, "IP TOS byte of replies")
	f.StringVar(&opts.out, "out", "", "write the arrivals CSV here (default: stdout)")
	f.StringVar(&opts.ready, "ready", "", "create this file once listening, so a caller can wait for it without sending probes")
	return cmd
}

func runProbeServer(ctx context.Context, opts *probeServerOptions, stdout, stderr io.Writer) error {
	if err := opts.Validate(); err != nil {
		return asFlagError(err)
	}
	opts.Ready = readyFile(opts.ready, opts.Listen, stderr)
	serve := func(ctx context.Context) ([]probe.Arrival, error) { return probe.Serve(ctx, opts.ServerOptions) }
	return probeRun(ctx, opts.out, stdout, droppedSome, serve, probe.WriteServerCSV)
}

// droppedSome keeps what a server recorded when its socket dropped datagrams: the arrivals show
// which probes were missed, and the exit status that the run is not to be trusted.
func droppedSome(err error) bool { return errors.Is(err, probe.ErrDropped) }
