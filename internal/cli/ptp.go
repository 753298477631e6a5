package cli

import (
	"context"
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/apps/ptp"
)

type ptpOptions struct {
	ptp.Options
	role  string
	out   string // the slave's samples CSV; stdout if empty
	log   string // ptp4l's own output
	ready string // a file created once ptp4l serves (master) or measures (slave)
}

// newPTPCommand runs linuxptp's ptp4l for the ptp experiment (Fig. 5), a hidden verb so that the
// same binary runs it inside every testbed namespace and stops ptp4l whatever happens. Its CSV is
// documented in docs/testbed.md.
func newPTPCommand(runF func(*ptpOptions) error) *cobra.Command {
	opts := &ptpOptions{Options: ptp.Options{Interface: "eth0", For: time.Minute, Limit: 100_000,
		SyncInterval: -4, DelayReqInterval: -4}}
	cmd := &cobra.Command{
		Use:    "ptp --role master|slave [--iface DEV] [--for D] [--out FILE] [--ready FILE]",
		Short:  "Run ptp4l as master or slave without touching the shared clock; the slave writes its offsets as CSV (used by the testbed)",
		Hidden: true,
		Args:   noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runPTP(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.role, "role", "", "master or slave")
	f.StringVar(&opts.Interface, "iface", opts.Interface, "the interface ptp4l runs on")
	f.DurationVar(&opts.For, "for", opts.For, "run this long at most")
	f.IntVar(&opts.Limit, "limit", opts.Limit, "slave: stop after this many samples")
	f.IntVar(&opts.SyncInterval, "sync-interval", opts.SyncInterval, "log2 seconds between Sync messages (-4: 16 a second)")
	f.IntVar(&opts.DelayReqInterval, "delay-req-interval", opts.DelayReqInterval, "log2 seconds between Delay_Req messages")
	f.StringVar(&opts.out, "out", "", "write the slave's samples CSV here (default: stdout)")
	f.StringVar(&opts.log, "log", "", "write ptp4l's own output here")
	f.StringVar(&opts.ready, "ready", "", "create this file once the master serves time or the slave has its first sample")
	_ = cmd.MarkFlagRequired("role")
	return cmd
}

func runPTP(ctx context.Context, opts *ptpOptions, stdout, stderr io.Writer) error {
	opts.Role = ptp.Role(opts.role)
	if err := opts.Validate(); err != nil {
		return asFlagError(err)
	}
	if _, err := net.InterfaceByName(opts.Interface); err != nil {
		return usageErrorf("invalid --iface %q: no such interface in this network namespace", opts.Interface)
	}
	opts.Ready = readyFile(opts.ready, string(opts.Role)+" "+opts.Interface, stderr)
	var log io.Writer
	if opts.log != "" {
		f, err := os.Create(opts.log)
		if err != nil {
			return usageErrorf("invalid --log %q: %v", opts.log, err)
		}
		defer f.Close()
		log = f
	}
	run := func(ctx context.Context) ([]ptp.Sample, error) { return ptp.Run(ctx, opts.Options, log) }
	return probeRun(ctx, opts.out, stdout, always, run, ptp.WriteCSV)
}
