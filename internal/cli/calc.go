package cli

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

type calcOptions struct {
	model      *modelFlags
	changed    func(flag string) bool // whether the user gave the flag
	configFile string
	mode       string
	// mtu and mark stand for up's device and --mark: P auto and the largest frame are resolved
	// from them as up resolves them from its --dev (forDevice).
	mtu  int
	mark string
	json bool
	// noAgentSection: the --config file has no agent: section (dataplane found), a plain file
	// for up and reload, which calc takes but notes, since qjump agent would refuse it.
	noAgentSection bool
}

func newCalcCommand(runF func(*calcOptions) error) *cobra.Command {
	opts := &calcOptions{model: newModelFlags(), mtu: model.DefaultMTU}
	cmd := &cobra.Command{
		Use:   "calc (--hosts N --rate R | --config FILE) [flags]",
		Short: "Compute the network epoch, per-level budgets, rates and latency bounds",
		Long: `calc evaluates QJump's model for a cluster:

  network epoch     E   = m·n·P·8/R + ε
  level budget      B_i = f_i·P bytes per epoch (down to a whole byte), rate T_i = B_i·8/E
  fan-in delay      D_7 = n·b·P·8·f_7/R + ε at the top level; below it, D_i also waits for the
                    budgets the levels above send meanwhile (docs/model.md); a guarantee while
                    Σ_{j≥i} f_j ≤ m (with ε: ≤ R·E/(8·n·P))

b is how many budgets one host can send back to back. --mode police (up's default) gives every
epoch a fresh budget, so a host can send one at the end of an epoch and the next at the start of
the following one: b = 2, and at m = 2 the top level at factor 1 arrives within one epoch E, the
paper's bound. --mode shape sends through token buckets of (m−1)·f·P: b = m−1, at least 1, so
the same level's bound is half an epoch. A token bucket passes no frame larger than itself, so in
shape mode each level's bucket holds at least one whole frame, and D_i and PORT BURST count
max(b·f_j·P, frame) a host for each level j instead of b·f_j·P (docs/model.md).

P and every budget count wire bytes: a frame of len bytes takes max(len, 60) + 24 on the wire
(FCS, preamble, inter-frame gap). --packet auto, the default, is one full frame of the device, as
up resolves it from its --dev: calc has no device, and --mtu gives its MTU (1500 by default, P =
1538B; 9000 for jumbo frames, 9038B) and --mark, as up's, whether up pushes an 802.1Q tag (pcp or
both: 4 bytes more, 1542B). The largest frame, which shape mode's bucket holds and the warnings
compare budgets with, is the same frame whatever --packet is.

PORT BURST is n·b·P·Σ_{j≥i} f_j, the most a guaranteed level and those above it can queue at one
switch port under full fan-in: the bound holds where the switches can buffer that much per port
(a port with less drops the burst's tail instead).

Level 7 is the highest priority. At factor 1 it has a guaranteed latency bound; a level whose
levels-at-or-above sum past m (a little more with ε) is oversubscribed under full fan-in, and calc says by how much
instead of printing a bound. A level may be "unlimited" (no budget), which is not factor 0.

--config reads a configuration file as up and the agent do (docs/configuration.md): its model,
mode and mark (which sets P auto's frame), with any flag given on the command line over the same
key. So the bounds of the file a
cluster runs are one command away, and calc refuses what up would refuse of it, and what qjump
agent would refuse of its agent: section. A file without an agent: section (a plain file for up)
is taken, with a note on stderr that qjump agent would refuse it.`,
		Example: `  # the paper's 12-host 10G testbed, ptpd at 7, memcached at 5 (solved for 5Gb/s), Hadoop at 0
  qjump calc --hosts 12 --rate 10G --epsilon 4us --mesochronous 1 \
             --factors 7=1,0=unlimited --target-rate 5=5G

  # the ns-2 simulation: 144 hosts, 9kB jumbo frames
  qjump calc --hosts 144 --rate 10G --packet 9k --mesochronous 1 \
             --factors 7=1,6=2,5=3,4=5,3=10,2=20,1=100,0=144

  # a cluster of 9000-byte jumbo frames marked with PCP: P auto is 9042B, as up makes it there
  qjump calc --hosts 12 --rate 10G --mtu 9000 --mark pcp

  # the bounds of a configuration file, and of the same with level 5 at 2Gb/s
  qjump calc --config qjump.yaml
  qjump calc --config qjump.yaml --target-rate 5=2G

  # machine-readable output (fields in docs/cli.md)
  qjump calc --hosts 12 --rate 10G --json`,
		Args: noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.changed = cmd.Flags().Changed
			if runF != nil {
				return runF(opts)
			}
			return runCalc(opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	opts.model.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.configFile, "config", "", "read the model, mode and mark from this configuration file, as up does; flags given override its keys (docs/configuration.md)")
	cmd.Flags().StringVar(&opts.mode, "mode", string(config.Police),
		"how the hosts hold levels to their budgets, as up's --mode: police or shape (sets b in D_i)")
	cmd.Flags().Var(&unitValue[int]{&opts.mtu, parseMTU}, "mtu",
		fmt.Sprintf("MTU of the hosts' devices, which up reads from its --dev: sets P auto and the largest frame, MTU + 14\n"+
			"(+ 4 with --mark pcp or both) + 24 on the wire (%d to %d)", minMTU, maxMTU))
	cmd.Flags().StringVar(&opts.mark, "mark", string(config.Default().Mark),
		"how packets carry their level, as up's --mark: dscp, pcp, both or none; pcp and both push an 802.1Q tag,\n"+
			"4 bytes more in P auto and the largest frame")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object instead of a table")
	return cmd
}

func runCalc(opts *calcOptions, stdout, stderr io.Writer) error {
	d, unitWarnings, err := opts.dataplane()
	if err != nil {
		return err
	}
	res, err := d.Model.Solve()
	if err != nil {
		return asFlagError(err)
	}
	res.Warnings = append(unitWarnings, res.Warnings...)
	if opts.noAgentSection {
		// calc serves plain files as well as cluster files, so this is no warning: a cluster
		// file whose section was forgotten is caught here, before every agent refuses it.
		fmt.Fprintf(stderr, "qjump: note: %s has no agent: section: up and reload take it as it is; qjump agent "+
			"would refuse it until one names the interfaces, e.g. %s\n", opts.configFile, agent.SectionExample)
	}
	f := calcFrame{auto: d.AutoPacket, mtu: opts.mtu, mark: d.Mark}
	if opts.json {
		return printJSON(stdout, newCalcJSON(res, f))
	}
	warn(stderr, res.Warnings)
	return printCalc(stdout, res, f)
}

// minMTU and maxMTU are the MTUs --mtu takes: Linux's range for an Ethernet device (ETH_MIN_MTU,
// the least IPv4 takes, and ETH_MAX_MTU).
const (
	minMTU = 68
	maxMTU = 65535
)

// parseMTU reads --mtu.
func parseMTU(s string) (int, error) {
	return parseWholeIn(minMTU, maxMTU, fmt.Sprintf("need an MTU in bytes from %d to %d (Linux's range for an Ethernet device), "+
		"e.g. 1500, 9000", minMTU, maxMTU))(s)
}

// calcFrame is where P auto and the largest frame came from: the MTU and the mark that pushes a
// tag or not, which the header and the JSON name.
type calcFrame struct {
	auto bool // P is auto: one full frame
	mtu  int
	mark config.Mark
}

// note is what the header says after P: the frame P auto is ("one 1500-MTU frame on the wire"),
// or for a P given, the largest frame where it is not the default 1538B.
func (f calcFrame) note(c model.Config) string {
	tag := ""
	if f.mark.MarksPCP() {
		tag = fmt.Sprintf(", tagged for mark %s", f.mark)
	}
	switch {
	case f.auto:
		return fmt.Sprintf(" (one %d-MTU frame on the wire%s)", f.mtu, tag)
	case c.MaxFrame != model.DefaultPacket:
		return fmt.Sprintf(" (largest frame %s: MTU %d%s)", c.MaxFrame, f.mtu, tag)
	}
	return ""
}

// dataplane merges defaults, --config and the flags the user gave, in that order, as up does,
// with P auto and the largest frame resolved for --mtu as up resolves them for its device's MTU
// (forDevice, the same path), and solves it: the model
// comes out told its mode (Shaped) and with the target rates solved into factors. The warnings
// are the rates the file and the flags gave without a unit, and a file's vlan_id that its mark
// does not use, which up and reload also say: calc is where a cluster file is checked before it
// ships.
func (o *calcOptions) dataplane() (config.Dataplane, []string, error) {
	flags := configFlags{changed: o.changed, model: o.model, configFile: o.configFile, mode: o.mode, mark: o.mark}
	d, err := flags.fileOrDefault()
	if err != nil {
		return d, nil, err
	}
	if o.configFile != "" {
		// A cluster file's agent section too, so that calc refuses what every agent would.
		present, err := agent.CheckSection(o.configFile, &flags.file.Agent)
		if err != nil {
			return d, nil, configError(err)
		}
		o.noAgentSection = !present
	}
	d, err = flags.over(d, "", func(string) (int, error) { return o.mtu, nil }, noModel)
	if err != nil {
		return d, nil, err
	}
	w := slices.Concat(flags.unitWarnings(), flags.vlanWarnings(d))
	if dw := d.DefaultLevelWarning(); dw != "" {
		w = append(w, dw) // the model's own warnings calc prints with its result
	}
	return d, w, nil
}

func printCalc(w io.Writer, res model.Result, f calcFrame) error {
	c := res.Config
	fmt.Fprintf(w, "n=%d hosts, R=%s, P=%s%s, ε=%s, m=%d (mesochronous compensation)\n",
		c.Hosts, c.Rate, c.Packet, f.note(c), model.DurationText(c.Epsilon), c.Mesochronous)
	budgets := "budgets"
	if c.BurstBudgets() == 1 {
		budgets = "budget"
	}
	fmt.Fprintf(w, "%s mode: a host can send b=%s %s of a level back to back\n", modeName(c), formatFactor(c.BurstBudgets()), budgets)
	// Rounded up, as the bounds are: an epoch of 176,947ns read 176.9µs above a bound of 177µs
	// that equals it.
	fmt.Fprintf(w, "network epoch E = m·n·P·8/R + ε = %s; line rate at factor %s\n\n",
		model.BoundText(res.Epoch), formatFactor(res.LineRateFactor))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEVEL\tFACTOR\tBUDGET/EPOCH\tRATE\tPORT BURST\tWORST-CASE FAN-IN DELAY")
	for _, l := range res.Levels {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", l.Level, factorText(l.Factor), budgetText(l), rateText(l), burstText(l.FanIn), delayText(l.FanIn))
	}
	return tw.Flush()
}

// modeName is the dataplane mode the model's bound assumes.
func modeName(c model.Config) config.Mode {
	if c.Shaped {
		return config.Shape
	}
	return config.Police
}

func budgetText(l model.LevelResult) string {
	if !l.HasBudget {
		return "unlimited"
	}
	return l.Budget.String()
}

// rateText is the level's rate; a budget that allows more than the link is shown at R and marked,
// since the link, not the budget, is what limits it (the warning gives the budget's own rate).
func rateText(l model.LevelResult) string {
	if l.Capped {
		return l.Rate.String() + " (capped at R)"
	}
	return l.Rate.String()
}

// burstText is what a guaranteed level's bound needs a switch port to queue, "-" elsewhere.
func burstText(f model.FanIn) string {
	if !f.Guaranteed {
		return "-"
	}
	return f.Buffer.String()
}

func delayText(f model.FanIn) string {
	switch {
	case f.Guaranteed:
		return model.BoundText(f.Delay) + " (guaranteed)"
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
