package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/model"
)

type calcOptions struct {
	model      *modelFlags
	factorsSet bool
	json       bool
}

func newCalcCommand(runF func(*calcOptions) error) *cobra.Command {
	opts := &calcOptions{model: newModelFlags()}
	cmd := &cobra.Command{
		Use:   "calc --hosts N --rate R [flags]",
		Short: "Compute the network epoch, per-level budgets, rates and latency bounds",
		Long: `calc evaluates QJump's model for a cluster:

  network epoch     E   = m·n·P·8/R + ε
  level budget      B_i = f_i·P bytes per epoch, rate T_i = f_i·P·8/E
  fan-in delay      D_i = n·P·8·Σ_{j≥i} f_j/R + ε, a guarantee while Σ_{j≥i} f_j ≤ m

P and every budget count wire bytes: a frame of len bytes takes max(len, 60) + 24 on the wire
(FCS, preamble, inter-frame gap). --packet auto, the default, is one full frame: calc has no
device and assumes an MTU of 1500, P = 1538B (up takes the MTU of its device).

Level 7 is the highest priority. At factor 1 it has a guaranteed latency bound; a level whose
levels-at-or-above sum past m is oversubscribed under full fan-in, and calc says by how much
instead of printing a bound. A level may be "unlimited" (no budget), which is not factor 0.`,
		Example: `  # the paper's 12-host 10G testbed, ptpd at 7, memcached at 5 (solved for 5Gb/s), Hadoop at 0
  qjump calc --hosts 12 --rate 10G --epsilon 4us --mesochronous 1 \
             --factors 7=1,0=unlimited --target-rate 5=5G

  # the ns-2 simulation: 144 hosts, 9kB jumbo frames
  qjump calc --hosts 144 --rate 10G --packet 9k --mesochronous 1 \
             --factors 7=1,6=2,5=3,4=5,3=10,2=20,1=100,0=144

  # machine-readable output (fields in docs/cli.md)
  qjump calc --hosts 12 --rate 10G --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.factorsSet = cmd.Flags().Changed("factors")
			if runF != nil {
				return runF(opts)
			}
			return runCalc(opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	opts.model.register(cmd.Flags())
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object instead of a table")
	_ = cmd.MarkFlagRequired("hosts")
	_ = cmd.MarkFlagRequired("rate")
	return cmd
}

func runCalc(opts *calcOptions, stdout, stderr io.Writer) error {
	cfg, err := opts.model.config(opts.factorsSet, model.DefaultMTU)
	if err != nil {
		return err
	}
	res, err := cfg.Solve()
	if err != nil {
		return asFlagError(err)
	}
	if opts.json {
		return printJSON(stdout, newCalcJSON(res, opts.model.packetAuto))
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "qjump: warning: %s\n", w)
	}
	return printCalc(stdout, res, opts.model.packetAuto)
}

// autoPacketNote says what P auto stands for in calc, which has no device.
var autoPacketNote = fmt.Sprintf(" (one %d-MTU frame on the wire)", model.DefaultMTU)

func printCalc(w io.Writer, res model.Result, packetAuto bool) error {
	c := res.Config
	note := ""
	if packetAuto {
		note = autoPacketNote
	}
	fmt.Fprintf(w, "n=%d hosts, R=%s, P=%s%s, ε=%s, m=%d (mesochronous compensation)\n",
		c.Hosts, c.Rate, c.Packet, note, model.FormatDuration(c.Epsilon), c.Mesochronous)
	fmt.Fprintf(w, "network epoch E = m·n·P·8/R + ε = %s; line rate at factor %s\n\n",
		model.FormatDuration(res.Epoch), formatFactor(res.LineRateFactor))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEVEL\tFACTOR\tBUDGET/EPOCH\tRATE\tWORST-CASE FAN-IN DELAY")
	for _, l := range res.Levels {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", l.Level, factorText(l.Factor), budgetText(l), l.Rate, delayText(l.FanIn))
	}
	return tw.Flush()
}

func budgetText(l model.LevelResult) string {
	if !l.HasBudget {
		return "unlimited"
	}
	return l.Budget.String()
}

func delayText(f model.FanIn) string {
	switch {
	case f.Guaranteed:
		return model.FormatDuration(f.Delay) + " (guaranteed)"
	case f.Oversubscription > 1e300:
		return "no bound: an unlimited level at or above"
	default:
		return fmt.Sprintf("oversubscribed ×%s under full fan-in", formatFactor(f.Oversubscription))
	}
}

func factorText(f model.Factor) string {
	if f.Unlimited {
		return f.String()
	}
	return formatFactor(f.Value)
}

func formatFactor(f float64) string {
	return model.Limited(roundSig(f)).String()
}
