package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/probe"
)

type probeMemcachedOptions struct {
	probe.KVOptions
	out string // the samples CSV; stdout if empty
}

func newProbeMemcachedCommand(runF func(*probeMemcachedOptions) error) *cobra.Command {
	opts := &probeMemcachedOptions{KVOptions: probe.KVOptions{Count: 2000, Interval: time.Millisecond, Value: 1024,
		GetRatio: 0.9, Keys: 1000, Seed: 1}}
	cmd := &cobra.Command{
		Use:   "memcached --server ADDR [--count N] [--out FILE]",
		Short: "Closed-loop memcached load (GET/SET of 1 kB values) recording every request's latency",
		Args:  noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runProbeMemcached(cmd.Context(), opts, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Server, "server", "", "memcached address:port")
	f.IntVar(&opts.Count, "count", opts.Count, "requests to measure")
	f.DurationVar(&opts.Interval, "interval", opts.Interval, "least time between request starts")
	f.IntVar(&opts.Value, "value", opts.Value, "value bytes")
	f.Float64Var(&opts.GetRatio, "get-ratio", opts.GetRatio, "fraction of GETs")
	f.IntVar(&opts.Keys, "keys", opts.Keys, "key space")
	f.Uint64Var(&opts.Seed, "seed", opts.Seed, "seed of the request mix")
	f.DurationVar(&opts.For, "for", 0, "stop after this long even before --count requests (0: no limit)")
	f.BoolVar(&opts.Populate, "populate", true, "set every key before measuring")
	f.StringVar(&opts.out, "out", "", "write the samples CSV here (default: stdout)")
	_ = cmd.MarkFlagRequired("server")
	return cmd
}

func runProbeMemcached(ctx context.Context, opts *probeMemcachedOptions, stdout io.Writer) error {
	if err := opts.Validate(); err != nil {
		return asFlagError(err)
	}
	load := func(ctx context.Context) ([]probe.KVSample, error) { return probe.KVLoad(ctx, opts.KVOptions) }
	return probeRun(ctx, opts.out, stdout, always, load, probe.WriteKVCSV)
}
