package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/probe"
)

// newProbeCommand is the testbed's latency probe, a hidden verb so that the same binary runs it
// inside every namespace. Its sample files are documented in docs/testbed.md.
func newProbeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "probe",
		Short:  "UDP latency probe with kernel timestamps (used by the testbed)",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	cmd.AddCommand(newProbeServerCommand(), newProbeClientCommand(), newProbeMemcachedCommand())
	return cmd
}

func newProbeServerCommand() *cobra.Command {
	opts := probe.ServerOptions{Listen: ":9000", Limit: 1_000_000}
	var out, ready string
	cmd := &cobra.Command{
		Use:   "server [--listen ADDR] [--for D] [--out FILE] [--ready FILE]",
		Short: "Answer probe requests and record every arrival (sender, seq, one-way latency)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return err
			}
			if ready != "" {
				opts.Ready = func() {
					if err := os.WriteFile(ready, []byte(opts.Listen+"\n"), 0o644); err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "qjump: write --ready file: %v\n", err)
					}
				}
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			arrivals, err := probe.Serve(ctx, opts)
			if err != nil {
				return err
			}
			return writeTo(out, cmd.OutOrStdout(), func(w io.Writer) error { return probe.WriteServerCSV(w, arrivals) })
		},
	}
	cmd.Flags().StringVar(&opts.Listen, "listen", opts.Listen, "UDP address:port to listen on")
	cmd.Flags().DurationVar(&opts.For, "for", 0, "stop after this long (default: at SIGINT/SIGTERM)")
	cmd.Flags().IntVar(&opts.TOS, "tos", 0, "IP TOS byte of replies")
	cmd.Flags().StringVar(&out, "out", "", "write the arrivals CSV here (default: stdout)")
	cmd.Flags().StringVar(&ready, "ready", "", "create this file once listening, so a caller can wait for it without sending probes")
	return cmd
}

func newProbeClientCommand() *cobra.Command {
	opts := probe.ClientOptions{Mode: probe.RequestResponse, Count: 1000, Interval: time.Millisecond,
		Size: 64, Timeout: time.Second}
	var out, mode string
	var sender int
	cmd := &cobra.Command{
		Use:   "client --to ADDR [--mode rr|oneway] [--count N] [--interval D] [--size B] [--out FILE]",
		Short: "Send probes and write one CSV row per probe",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sender < 0 || sender > math.MaxUint16 {
				return &model.FieldError{Field: "sender", Value: strconv.Itoa(sender), Allowed: "0 to 65535"}
			}
			opts.Mode, opts.Sender = probe.Mode(mode), uint16(sender)
			if err := opts.Validate(); err != nil {
				return err
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			samples, err := probe.Probe(ctx, opts)
			if err != nil {
				return err
			}
			return writeTo(out, cmd.OutOrStdout(), func(w io.Writer) error { return probe.WriteClientCSV(w, samples) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.To, "to", "", "server address:port")
	f.StringVar(&mode, "mode", "rr", "rr (request/response) or oneway")
	f.IntVar(&opts.Count, "count", opts.Count, "probes to send")
	f.DurationVar(&opts.Interval, "interval", opts.Interval, "time between sends")
	f.IntVar(&opts.Size, "size", opts.Size, fmt.Sprintf("UDP payload bytes (at least %d)", probe.MinSize))
	f.DurationVar(&opts.Timeout, "timeout", opts.Timeout, "a reply later than this counts as lost")
	f.IntVar(&opts.TOS, "tos", 0, "IP TOS byte (QJump sets DSCP itself; this is for testing the switch alone)")
	f.IntVar(&sender, "sender", 0, "this sender's id in the packets")
	f.StringVar(&out, "out", "", "write the samples CSV here (default: stdout)")
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

func writeTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

func newProbeMemcachedCommand() *cobra.Command {
	opts := probe.KVOptions{Count: 2000, Interval: time.Millisecond, Value: 1024, GetRatio: 0.9, Keys: 1000, Seed: 1}
	var out string
	cmd := &cobra.Command{
		Use:   "memcached --server ADDR [--count N] [--out FILE]",
		Short: "Closed-loop memcached load (GET/SET of 1 kB values) recording every request's latency",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return err
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			samples, err := probe.KVLoad(ctx, opts)
			werr := writeTo(out, cmd.OutOrStdout(), func(w io.Writer) error { return probe.WriteKVCSV(w, samples) })
			if err != nil {
				return err
			}
			return werr
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
	f.StringVar(&out, "out", "", "write the samples CSV here (default: stdout)")
	_ = cmd.MarkFlagRequired("server")
	return cmd
}
