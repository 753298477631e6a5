package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

type upOptions struct {
	configFlags
	dev     string
	attach  string
	replace bool
}

func newUpCommand(runF func(*upOptions) error) *cobra.Command {
	opts := &upOptions{configFlags: configFlags{model: newModelFlags(), base: "the default"}}
	cmd := &cobra.Command{
		Use:   "up --dev IF [--config FILE] [model flags] [flags]",
		Short: "Attach QJump's rate limiter to the egress of an interface",
		Long: `up loads QJump's eBPF program onto the egress of an interface (TCX where the kernel has it,
clsact otherwise) and leaves it there after qjump exits; state is pinned under bpffs. It goes
first on the egress, before the programs or filters already there, which run after it as before:
one before it could take packets past QJump. With clsact, a filter at pref 1 leaves no room before
it, and up refuses.

Every packet gets a level from its socket priority (SO_PRIORITY 1..7 is level 1..7; priority 0 and
anything else is unclassified and takes --default-level), clamped by its cgroup's ceiling. Level i
may send f_i·P bytes per network epoch E = m·n·P·8/R + ε; an "unlimited" level is never held, and
traffic at a level with no factor is sent at the nearest configured level below it.

  --mode police  over budget: drop (or with --autoclass, demote to the highest lower level
                 that still has budget), as the paper's module did
  --mode shape   never drop for budget: each limited level is shaped to f·P·8/E (a token bucket
                 of (m−1)·f·P); TCP slows down instead of losing packets

In both modes QJump owns the interface's egress scheduling while it is up: it saves the qdiscs
the interface has and replaces them with strict priority by level under a root class at R (or
the interface's speed, if lower); down puts the saved ones back exactly.

Packets carry their level as DSCP (CS0..CS7 by default), an 802.1Q PCP, both or neither. Flags
override the same keys of --config (docs/configuration.md). An interface that is already up is
left as it is unless --replace. If the new configuration then fails (the kernel refuses its
hook, say), the one it replaced is put back on its hook and the error says so: a failed
--replace never leaves the interface without QJump.

Ctrl-C (SIGINT) or SIGTERM while up configures the interface undoes everything up did there and
exits 130; with --replace it also puts back the configuration it was replacing, on the same hook
(as a new up of it: generation 1, counters from 0). Once the configuration is complete (up's
commit point, before it prints its warnings and "up on IF"), it is too late to undo: up ignores
the signal, exits 0 and QJump stays up; qjump down removes it.`,
		Example: `  # a host of the paper's 12-host 10G testbed: level 7 at factor 1, level 5 at 5Gb/s, shaped
  # (TCP at a limited level needs shape mode: police drops its 64 kB GSO packets)
  qjump up --dev eth0 --hosts 12 --rate 10G --factors 7=1,0=unlimited --target-rate 5=5G --mode shape

  # from a file, shaping instead of policing, marking both DSCP and PCP
  qjump up --dev eth0 --config /etc/qjump.yaml --mode shape --mark both

  # inside a network namespace: QJump stays attached after the command exits
  ip netns exec host1 qjump up --dev eth0 --hosts 4 --rate 1G`,
		Args: noArgs("dev"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.changed = cmd.Flags().Changed
			if runF != nil {
				return runF(opts)
			}
			return runUp(cmd.Context(), opts, cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	opts.register(fs, config.Default(), "YAML configuration file (docs/configuration.md); flags override it")
	fs.StringVar(&opts.dev, "dev", "", "interface to attach to, e.g. eth0")
	fs.StringVar(&opts.attach, "attach", string(dataplane.AttachAuto), "egress hook: auto (TCX if the kernel has it), tcx or clsact")
	fs.BoolVar(&opts.replace, "replace", false, "if the interface is already up, take it down and start over")
	_ = cmd.MarkFlagRequired("dev")
	return cmd
}

func runUp(ctx context.Context, opts *upOptions, stderr io.Writer) error {
	if err := checkDev(opts.dev); err != nil {
		return err
	}
	d, err := opts.dataplane(deviceMTU)
	if err != nil {
		return err
	}
	how, err := parseAttach(opts.attach)
	if err != nil {
		return err
	}
	warn(stderr, opts.warnings(d))
	// A signal during up must not leave half a configuration behind: hold it until up is done,
	// then undo. After the commit point, the check below, nothing is undone and up exits 0.
	ctx, stop := interruptible(ctx)
	defer stop()
	prev, err := dataplane.Up(dataplane.UpOptions{Device: opts.dev, Config: d, Attach: how, Replace: opts.replace})
	beforeUpCommits(ctx)
	if ctx.Err() != nil {
		return undoUp(ctx, opts.dev, err, prev)
	}
	if err != nil {
		return dataplaneError(err)
	}
	commit(stop)
	warn(stderr, dataplane.PoliceWarnings(opts.dev, d))
	fmt.Fprintf(stderr, "qjump: up on %s (%s mode, epoch %s)\n", opts.dev, d.Mode, model.BoundText(d.Model.Epoch()))
	if was, err := dataplane.Replaced(opts.dev); err == nil {
		fmt.Fprintf(stderr, "qjump: replaced %s on %s's egress; qjump down puts it back\n", was, opts.dev)
	}
	return nil
}

// undoUp is up interrupted before its commit point (upErr: what dataplane.Up returned; prev: the
// configuration --replace took down for it). A failed dataplane.Up has undone its own work and
// put back what it replaced, and its error says so; a successful one is taken down and prev, if
// any, put back: the user asked for a new configuration, not for none. Otherwise the error says
// exactly what is left.
func undoUp(ctx context.Context, dev string, upErr error, prev *dataplane.Previous) error {
	while := fmt.Errorf("%v while %s came up", context.Cause(ctx), dev)
	if upErr != nil {
		return errors.Join(while, dataplaneError(upErr))
	}
	if prev == nil {
		if err := dataplane.Down(dev); err != nil {
			return errors.Join(while, fmt.Errorf("taking it down: %w", dataplaneError(err)),
				fmt.Errorf("the new configuration may still be on %s (qjump down --dev %s removes it)", dev, dev))
		}
		return interruptedError(ctx, "nothing left attached on %s", dev)
	}
	if err := dataplane.PutBack(dev, *prev); err != nil {
		return errors.Join(while, fmt.Errorf("putting back the configuration %s ran before failed: %w", dev, dataplaneError(err)),
			fmt.Errorf("qjump status --dev %s shows what runs; qjump up --replace puts a configuration on it", dev))
	}
	return interruptedError(ctx, "put back the configuration %s ran before (generation 1: its counters start over)", dev)
}

// beforeUpCommits runs between dataplane.Up and up's commit point: a test's hook, to send a
// signal there.
var beforeUpCommits = func(context.Context) {}

// dataplane merges defaults, --config and the flags the user gave, in that order, resolves P for
// the device (mtu) and solves it.
func (o *upOptions) dataplane(mtu mtuOf) (config.Dataplane, error) {
	d, err := o.fileOrDefault()
	if err != nil {
		return d, err
	}
	return o.over(d, o.dev, mtu, noModel)
}

func parseAttach(s string) (dataplane.Attach, error) {
	switch a := dataplane.Attach(s); a {
	case dataplane.AttachAuto, dataplane.AttachTCX, dataplane.AttachClsact:
		return a, nil
	}
	return "", usageErrorf("invalid --attach %q: need auto, tcx or clsact", s)
}
