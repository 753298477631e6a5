package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

type statusOptions struct {
	dev      string
	json     bool
	watch    bool
	interval time.Duration
	count    int
	typed    typedTexts // --interval as typed, for its refusal to quote ("2h", not 2h0m0s)
}

func newStatusCommand(runF func(*statusOptions) error) *cobra.Command {
	opts := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status [--dev IF] [--json] [--watch [--interval D] [--count N]]",
		Short: "Show QJump's configuration and per-level counters on the interfaces it is up on",
		Long: `status prints, for each interface QJump is up on in this network namespace (or only --dev),
the hook, the mode, the network epoch, and per level: factor, budget per epoch, rate, the packets
and wire bytes sent, the packets dropped (every reason), demoted (police --autoclass) and shaped
(shape mode: times the level's shaper held a packet back). A second table counts the packets by
reason: over budget, larger than the whole budget (never sendable), lost to contention between
CPUs, no configured level at or below their cgroup's ceiling (all dropped), passed with no
configuration loaded (level 0), not IP and malformed (sent, never marked). Counters are totals
since up; reload keeps them.

It warns when the interface has changed under the configuration it runs: an MTU raised since up
makes full frames longer than budgets sized for the old one (every such frame is then dropped as
larger than the budget), and leaves a P that was auto short of one full frame (reload --dev IF
--packet auto resolves it again). Attached through clsact, it warns of a filter added to the egress
at a pref before QJump's since up: the first filter that matches a packet ends its classification,
so QJump would neither count nor limit the packets that filter matches. Attached through TCX, it
warns of a program attached before QJump's since up, for the same reason: one that passes or
redirects a packet ends the run.

An interface that a qjump agent runs says "managed by" it, with its pid and state directory: the
agent puts back what is removed by hand, and its file's configuration over a reload by hand at its
next resync. Status asks the agent of its network namespace on the abstract unix socket it holds,
whatever its --state-dir.

--watch prints what is happening now instead: every --interval (1s by default), per level and per
second over the last interval, the limit (f·P·8/E), the wire bits and packets sent, and the
packets dropped (every reason), demoted and held by the shapers, until Ctrl-C or --count updates.
An interface that goes down or comes up meanwhile is said to, and the watch goes on. On a
terminal each update replaces the last; into a pipe or a file they follow one another, and with
--json each is one line of JSON.`,
		Example: `  qjump status
  qjump status --dev eth0 --json
  qjump status --watch                      # rates per level, refreshed every second
  qjump status --watch --interval 100ms --count 50 --json > rates.jsonl
  ip netns exec host1 qjump status`,
		Args: noArgs("dev"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := validateWatch(opts, cmd.Flags().Changed("interval"), cmd.Flags().Changed("count")); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.watch {
				ctx, stop := interruptible(cmd.Context())
				defer stop()
				return watchStatus(ctx, opts, cmd.OutOrStdout(), isTerminal(cmd.OutOrStdout()))
			}
			return runStatus(opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&opts.dev, "dev", "", "only this interface")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object instead of tables (with --watch: one line per update)")
	cmd.Flags().BoolVar(&opts.watch, "watch", false, "print the rates per level every --interval, until Ctrl-C")
	cmd.Flags().DurationVar(&opts.interval, "interval", time.Second, "with --watch: time between updates, "+watchIntervals)
	cmd.Flags().IntVar(&opts.count, "count", 0, "with --watch: stop after this many updates (0: until Ctrl-C)")
	opts.typed.keep(cmd.Flags(), "interval")
	return cmd
}

// readStatus reads the state of dev (deviceState: a gone interface's too), or of every interface
// QJump is up on in this namespace.
func readStatus(dev string) ([]dataplane.Status, error) {
	if dev != "" {
		st, err := deviceState(dev)
		if err != nil {
			return nil, dataplaneError(err)
		}
		return []dataplane.Status{st}, nil
	}
	all, err := dataplane.List()
	if err != nil {
		return nil, dataplaneError(err)
	}
	return all, nil
}

func runStatus(opts *statusOptions, stdout io.Writer) error {
	all, err := readStatus(opts.dev)
	if err != nil {
		return err
	}
	var orphans []string
	if opts.dev == "" {
		var err error
		if orphans, err = dataplane.Orphans(); err != nil {
			return dataplaneError(err)
		}
	}
	if opts.json {
		return printJSON(stdout, newStatusJSON(all, orphans, deviceMTU))
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "qjump is not up on any interface in this network namespace")
	}
	for _, o := range orphans {
		fmt.Fprintf(stdout, "warning: %s\n", o)
	}
	seen := lookForAgent()
	for i, st := range all {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := printStatus(stdout, st, seen); err != nil {
			return err
		}
	}
	return nil
}

func printStatus(w io.Writer, st dataplane.Status, seen agentSight) error {
	d, m := st.Config, st.Config.Model
	state := "attached"
	if !st.Attached {
		state = "NOT ATTACHED (" + notAttachedAdvice(st.Device, seen) + ")"
	}
	tree := ""
	if st.TreeGone != "" {
		tree = ", EGRESS TREE GONE (see the warning below)"
	}
	how := st.Attach
	if how == "" {
		how = "no hook" // up was killed before it attached
	}
	name := st.Device
	if st.UpAs != "" {
		name += " (up as " + st.UpAs + ", renamed since)"
	}
	fmt.Fprintf(w, "%s: %s via %s%s, %s mode%s, mark %s, default level %d, generation %d\n", name, state,
		how, tree, d.Mode, autoclassText(d), d.Mark, d.DefaultLevel, st.Generation)
	if r, ok := seen.of(st.Device); ok {
		// An operator about to change the interface by hand should know: the agent puts back
		// what is removed, and its file's configuration over a reload at its next resync.
		fmt.Fprintf(w, "managed by the %s\n", r.Name())
	}
	fmt.Fprintf(w, "n=%d hosts, R=%s, P=%s, ε=%s, m=%d: epoch E=%s\n", m.Hosts, m.Rate, m.Packet,
		model.DurationText(m.Epsilon), m.Mesochronous, model.BoundText(m.Epoch()))
	fmt.Fprintln(w, guarantees(d))
	for _, warning := range deviceWarnings(st, deviceMTU, seen) {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "LEVEL\tFACTOR\tBUDGET/EPOCH\tRATE\tTARGET\tSENT PKTS\tSENT BYTES\tDROPPED\tDEMOTED\tSHAPED\t")
	for l := model.NumLevels - 1; l >= 0; l-- {
		f, b, r := levelModel(d, model.Level(l))
		c := st.Levels[l]
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t\n", l, f, b, r, targetText(d, model.Level(l)),
			c.SentPackets, c.SentBytes, c.Dropped(), c.DemotedPackets, c.ShapedPackets)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "packets by reason:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "LEVEL\tOVER BUDGET\tLARGER THAN BUDGET\tCONTENDED\tNO LEVEL\tNO CONFIG\tNOT IP\tMALFORMED\t")
	for l := model.NumLevels - 1; l >= 0; l-- {
		c := st.Levels[l]
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", l, c.DroppedPackets, c.OversizePackets, c.ContendedPackets,
			c.NoLevelPackets, c.UnconfiguredPackets, c.NotIPPackets, c.MalformedPackets)
	}
	return tw.Flush()
}

func autoclassText(d config.Dataplane) string {
	if d.Autoclass {
		return " with autoclass"
	}
	return ""
}

// guarantees says which levels of the running configuration have a latency bound under full
// fan-in, and what it is (calc's WORST-CASE FAN-IN DELAY, for the mode that runs), so that an
// operator reads the bound the interface is giving without running calc.
func guarantees(d config.Dataplane) string {
	m := d.ModelOfMode()
	var out []string
	for _, l := range m.Factors.Levels() { // highest first
		if fi := m.FanIn(l); fi.Guaranteed {
			out = append(out, fmt.Sprintf("level %d within %s", l, model.BoundText(fi.Delay)))
		}
	}
	if len(out) == 0 {
		return "guaranteed under full fan-in: no level (calc --config says why)"
	}
	return "guaranteed under full fan-in: " + strings.Join(out, ", ")
}

// targetText is the target rate a level's factor was solved from, which reload keeps, or "-" for
// a factor given as one (and a level without a factor).
func targetText(d config.Dataplane, l model.Level) string {
	if r := targetRate(d, l); r != nil {
		return model.Rate(*r).String()
	}
	return "-"
}

// levelModel is a level's factor, budget and rate as text. A level without a factor carries no
// traffic of its own: it says which level carries what is sent at it.
func levelModel(d config.Dataplane, l model.Level) (factor, budget, rate string) {
	f, ok := d.Model.Factors[l]
	if !ok {
		carrier, _ := d.Model.Factors.Carrier(l)
		return "-", fmt.Sprintf("sent at %d", carrier), "-"
	}
	b, limited := d.Model.Budget(f)
	if !limited {
		return "unlimited", "unlimited", d.Model.Rate.String()
	}
	return factorText(f), b.String(), d.Model.LevelRate(f).String()
}

// agentStateDir is where status looks for the state of a qjump agent that does not say which
// interfaces it runs (an agent before it said; a test's own directory in tests).
var agentStateDir = agent.DefaultStateDir

// agentSight is what status sees of the qjump agent of its network namespace. The agent holds
// its abstract socket and says there which interfaces it runs and where it keeps its state
// (agent.Find), whatever its --state-dir. Status looks once a run (lookForAgent), not once per
// device and message: each look dials the socket and waits up to a second for the answer.
type agentSight struct {
	said  bool          // an agent answered, naming its interfaces
	agent agent.Running // that agent
}

// lookForAgent asks the agent of this network namespace, if any, what it runs.
func lookForAgent() agentSight {
	if r, ok := agent.Find(); ok && r.Said {
		return agentSight{said: true, agent: r}
	}
	return agentSight{}
}

// of is the qjump agent that runs QJump on dev in this network namespace, if status can see one:
// the one that answered, if it names dev; without an answer (an agent of an earlier version says
// nothing), the one found as before, by the lock and the state of the default state directory
// (agent.Manages).
func (s agentSight) of(dev string) (agent.Running, bool) {
	if s.said {
		return s.agent, slices.Contains(s.agent.Devices, dev)
	}
	if pid, ok := agent.Manages(agentStateDir, dev); ok {
		return agent.Running{Pid: pid, StateDir: agentStateDir}, true
	}
	return agent.Running{}, false
}

// notAttachedAdvice is what to do about a device with QJump's state but no hook. `qjump down` is
// the fix unless a qjump agent runs QJump on it: the agent puts the hook back within a second
// (docs/deployment.md), and a down would be undone by it. When status sees that agent (agentSight)
// it says so; otherwise the advice covers both cases.
func notAttachedAdvice(dev string, seen agentSight) string {
	if r, ok := seen.of(dev); ok {
		return fmt.Sprintf("hook gone: the %s runs QJump on %s and puts it back within a second "+
			"(its log says why if it cannot); qjump down would not stick", r.Name(), dev)
	}
	return "interface or hook gone, or an up killed before it finished: run qjump down, unless a qjump agent " +
		"manages it, which puts it back within a second"
}

// treeGoneWarning says that the egress tree up built is gone from a device whose state is there,
// what is there instead, what it costs, and what to do: a qjump agent that runs QJump on it builds
// it again within a second (as it puts back a hook); otherwise a reload does, keeping the
// counters, or down gives the device back. "" while the tree is there.
func treeGoneWarning(st dataplane.Status, seen agentSight) string {
	if st.TreeGone == "" {
		return ""
	}
	dev := st.Device
	what := fmt.Sprintf("%s's egress tree is gone: %s; its levels leave without strict priority and the cap at R=%s",
		dev, st.TreeGone, st.Config.Model.Rate)
	if r, ok := seen.of(dev); ok {
		return fmt.Sprintf("%s. The %s runs QJump on %s and builds it again within a second "+
			"(its log says why if it cannot)", what, r.Name(), dev)
	}
	return fmt.Sprintf("%s. qjump reload --dev %s builds it again with what runs, its counters kept (a qjump agent "+
		"that manages it does so within a second), or qjump down --dev %s gives the device back", what, dev, dev)
}

// programWarning says that the program running on a device is not the one this qjump loads: it
// was loaded by another build (before an upgrade, or by an agent of another version), and runs
// what that build's program does until a reload loads this one's. "" when it is this build's, and
// for a device without its hook (the next up loads this build's anyway).
func programWarning(st dataplane.Status, seen agentSight) string {
	if st.ProgramIsThisBuild() || !st.Attached {
		return ""
	}
	what := fmt.Sprintf("%s runs %s, not this qjump's (%s)", st.Device, dataplane.RunningProgram(st.Program), dataplane.ProgramBuild())
	if r, ok := seen.of(st.Device); ok {
		return fmt.Sprintf("%s. The %s loads its own build's at its next resync (30 s); if this stays, that agent is "+
			"another build than this qjump (qjump version says which this is)", what, r.Name())
	}
	return fmt.Sprintf("%s. qjump reload --dev %s loads this one's, budgets and counters kept", what, st.Device)
}

// deviceWarnings is what status warns about a device: its egress tree gone, the program another
// build's, then statusWarnings.
func deviceWarnings(st dataplane.Status, mtu mtuOf, seen agentSight) []string {
	var w []string
	for _, s := range []string{treeGoneWarning(st, seen), programWarning(st, seen)} {
		if s != "" {
			w = append(w, s)
		}
	}
	return append(w, statusWarnings(st, mtu)...)
}
