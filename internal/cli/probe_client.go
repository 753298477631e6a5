package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/probe"
)

type probeClientOptions struct {
	probe.ClientOptions
	mode   string // rr or oneway, checked by probe
	sender int    // this sender's id, checked to fit the packet's 16 bits
	out    string // the samples CSV; stdout if empty
}

func newProbeClientCommand(runF func(*probeClientOptions) error) *cobra.Command {
	opts := &probeClientOptions{ClientOptions: probe.ClientOptions{Count: 1000, Interval: time.Millisecond,
		Size: 64, Timeout: time.Second}}
	cmd := &cobra.Command{
		Use:   "client --to ADDR [--mode rr|oneway] [--count N] [--interval D] [--size B] [--out FILE]",
		Short: "Send probes and write one CSV row per probe",
		Args:  noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runProbeClient(cmd.Context(), opts, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.To, "to", "", "server address:port")
	f.StringVar(&opts.mode, "mode", string(probe.RequestResponse), "rr (request/response) or oneway")
	f.IntVar(&opts.Count, "count", opts.Count, "probes to send")
	f.DurationVar(&opts.Interval, "interval", opts.Interval, "time between sends")
	f.IntVar(&opts.Size, "size", opts.Size, fmt.Sprintf("UDP payload bytes (at least %d)", probe.MinSize))
	f.DurationVar(&opts.Timeout, "timeout", opts.Timeout, "a reply later than this counts as lost")
	f.IntVar(&opts.TOS, "tos", 0, "IP TOS byte (QJump sets DSCP itself; this is for testing the switch alone)")
	f.IntVar(&opts.sender, "sender", 0, "this sender's id in the packets")
	f.StringVar(&opts.out, "out", "", "write the samples CSV here (default: stdout)")
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

func runProbeClient(ctx context.Context, opts *probeClientOptions, stdout io.Writer) error {
	if opts.sender < 0 || opts.sender > math.MaxUint16 {
		return asFlagError(&model.FieldError{Field: "sender", Value: strconv.Itoa(opts.sender), Allowed: "0 to 65535"})
	}
	opts.Mode, opts.Sender = probe.Mode(opts.mode), uint16(opts.sender)
	if err := opts.Validate(); err != nil {
		return asFlagError(err)
	}
	send := func(ctx context.Context) ([]probe.Sample, error) { return probe.Probe(ctx, opts.ClientOptions) }
	return probeRun(ctx, opts.out, stdout, never, send, probe.WriteClientCSV)
}
