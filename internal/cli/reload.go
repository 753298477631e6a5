package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

type reloadOptions struct {
	configFlags
	dev     string
	changes bool // a flag that changes the configuration was given (any but --dev and --config)
}

func newReloadCommand(runF func(*reloadOptions) error) *cobra.Command {
	opts := &reloadOptions{configFlags: configFlags{model: &modelFlags{}, base: "what the interface runs"}}
	cmd := &cobra.Command{
		Use:   "reload --dev IF [--config FILE] [model flags] [flags]",
		Short: "Replace the configuration of a running interface atomically",
		Long: `reload swaps the configuration of an interface that is up, while traffic flows: it loads a new
copy of the program with the new configuration as its constants and swaps it into the hook in one
step, so every packet sees either the old or the new configuration, never a mix. Budgets do not
restart: the new budget of each level applies
at once to the bytes its current epoch has already carried, so no epoch ever carries an old budget
plus a new one. Counters keep counting. The mode (police or shape) cannot change: that needs down,
then up.

The new configuration is --config FILE, whole, or without it the one running now, with the flags
given applied over it as up applies its flags over its file: --factors replaces every factor,
--target-rate solves the factor of the levels it names and leaves the others as they are. A level
whose factor was solved from a target rate (by up, an earlier reload or the file) keeps that rate:
its factor is solved again in the new epoch when n, R, P, ε or m change, and reload says so;
--factors replaces it like any other factor.

QJump's egress tree deleted or replaced by hand (qjump status says EGRESS TREE GONE) is built again
whole with the new configuration, budgets and counters carrying on as in any reload, and reload
says so; with neither --config nor a flag, reload builds it again with the configuration that runs.
The same reload loads this qjump's eBPF program where the interface runs another build's (qjump
was upgraded since up; qjump status says so): budgets and counters carry on. Where neither is the
case it refuses: there is nothing to reload. If the kernel refuses the new tree or program, the tree of the configuration that ran is
built again instead: either way the interface is left with QJump whole.

Ctrl-C (SIGINT) or SIGTERM while reload swaps the configuration is held until the swap is done or
undone: a reload is never left half made. Once the new configuration is in place (reload's commit
point, before it prints its warnings and "reloaded IF"), the signal is ignored: reload exits 0
and the interface runs the new configuration. If the reload failed, the old one still runs.`,
		Example: `  # the whole configuration from a file
  qjump reload --dev eth0 --config /etc/qjump.yaml

  # level 5 at 2Gb/s, everything else as it runs now
  qjump reload --dev eth0 --target-rate 5=2G

  # 24 hosts instead of 12: a longer epoch, the same factors (a level given a target rate
  # keeps its rate, with a factor solved again)
  qjump reload --dev eth0 --hosts 24`,
		Args: noArgs("dev"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.changed = cmd.Flags().Changed
			cmd.Flags().Visit(func(f *pflag.Flag) { opts.changes = opts.changes || (f.Name != "dev" && f.Name != "config") })
			if runF != nil {
				return runF(opts)
			}
			return runReload(cmd.Context(), opts, cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	opts.register(fs, config.Dataplane{}, "YAML configuration file (docs/configuration.md), in place of the running configuration; flags override it")
	fs.StringVar(&opts.dev, "dev", "", "interface that is up, e.g. eth0")
	_ = cmd.MarkFlagRequired("dev")
	return cmd
}

func runReload(ctx context.Context, opts *reloadOptions, stderr io.Writer) error {
	// Strictly an interface: a reload of the state of a gone one could never be applied.
	if err := checkDev(opts.dev); err != nil {
		return err
	}
	var base uint64          // the generation the flags are applied to; 0 for a whole --config
	var was config.Dataplane // what it runs, to say which factors kept a target rate
	running := func(dev string) (dataplane.Status, error) {
		st, err := dataplane.DeviceStatus(dev)
		if err != nil {
			return st, dataplaneError(err)
		}
		base, was = st.Generation, st.Config
		return st, nil
	}
	d, err := opts.dataplane(deviceMTU, running)
	if err != nil {
		return err
	}
	warn(stderr, opts.warnings(d))
	// A signal in the middle would leave the new egress tree beside the old program: hold it
	// until the reload is done or undone. Done is the commit point, as up's is: the new
	// configuration is in place and stays, so a signal then (or later, until the process exits)
	// does not make a reload that succeeded exit 130 as if it had failed.
	ctx, stop := interruptible(ctx)
	defer stop()
	rebuilt, err := dataplane.ReloadFrom(opts.dev, base, d)
	beforeReloadCommits(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return errors.Join(fmt.Errorf("%v while %s reloaded", context.Cause(ctx), opts.dev), dataplaneError(err))
		}
		var fe *model.FieldError
		if errors.As(err, &fe) && fe.Field == "mode" {
			// A mode the file gave, or left to the default, is the file's to name, not a --mode
			// the user never gave (review, helper-80).
			if opts.configFile != "" && !opts.changed("mode") && opts.file.Mode == nil {
				runs := config.Shape // the one mode there is besides the default's, police
				fe.Allowed += fmt.Sprintf(" (%s is the default: %s has no mode:; add mode: %s, or give --mode %s)",
					d.Mode, opts.configFile, runs, runs)
			}
			return opts.blame(err)
		}
		return dataplaneError(err)
	}
	commit(stop)
	if rebuilt != "" {
		fmt.Fprintf(stderr, "qjump: %s's egress tree was gone (%s): built again with the new configuration\n", opts.dev, rebuilt)
	}
	warn(stderr, dataplane.PoliceWarnings(opts.dev, d))
	// A filter put before QJump's on a clsact egress since up takes packets past it, as a program
	// before QJump's on a TCX egress does; reload keeps the filter's pref and the program's place
	// (a link update), so it says so as status does (review, helper-63: only status did).
	if st, err := dataplane.DeviceStatus(opts.dev); err == nil {
		warn(stderr, beforeQJumpWarnings(st))
	}
	opts.noteKeptRates(stderr, was, d)
	fmt.Fprintf(stderr, "qjump: reloaded %s (%s mode, epoch %s)\n", opts.dev, d.Mode, model.BoundText(d.Model.Epoch()))
	return nil
}

// beforeReloadCommits runs between dataplane.ReloadFrom and reload's commit point: a test's
// hook, to send a signal there.
var beforeReloadCommits = func(context.Context) {}

// dataplane is the configuration to reload: --config FILE or what the device runs (running), the
// flags the user gave over it, P resolved for the device (mtu), solved. With neither a file nor a
// flag there is nothing to change, and a reload is worth only the egress tree it builds again when
// that tree is gone: then it is what the device runs, as it runs.
func (o *reloadOptions) dataplane(mtu mtuOf, running func(dev string) (dataplane.Status, error)) (config.Dataplane, error) {
	var d config.Dataplane
	if o.configFile != "" {
		var err error
		if d, err = o.load(); err != nil {
			return d, err
		}
	} else {
		st, err := running(o.dev)
		if err != nil {
			return d, err
		}
		if !o.changes && st.TreeGone == "" && st.ProgramIsThisBuild() {
			return d, usageErrorf("nothing to reload: give --config FILE, or the flags to change (see qjump reload --help); "+
				"without either, reload only builds again an egress tree that is gone, or loads this qjump's program "+
				"in place of another build's, and %s has its tree and this build's program", o.dev)
		}
		d = o.keepTargetRates(st.Config)
	}
	return o.over(d, o.dev, mtu, func(flags, keys string) string {
		return fmt.Sprintf("invalid --config %s: a reload needs %s (or %s)", o.configFile, keys, flags)
	})
}

// keepTargetRates makes the running configuration's target rates targets again: a factor gives
// its rate only in the epoch it was solved for, so a reload that changes n, R, P, ε or m solves
// them anew and each level keeps the rate it was given. --factors replaces every factor, those
// solved from a target rate too.
func (o *reloadOptions) keepTargetRates(d config.Dataplane) config.Dataplane {
	if !o.changed("factors") {
		d.TargetRates, o.keptRates = maps.Clone(d.SolvedRates), d.SolvedRates
	}
	d.SolvedRates = nil
	return d
}

// noteKeptRates says which levels were solved again for the target rate they kept (reload without
// --config), when that changed their factor: a reload of --hosts alone changes factors too.
func (o *reloadOptions) noteKeptRates(stderr io.Writer, was, now config.Dataplane) {
	for _, l := range now.Model.Factors.Levels() {
		if o.keptRate(l) && was.Model.Factors[l] != now.Model.Factors[l] {
			fmt.Fprintf(stderr, "qjump: level %d keeps its target rate %s: factor %s, was %s\n",
				l, now.SolvedRates[l], factorText(now.Model.Factors[l]), factorText(was.Model.Factors[l]))
		}
	}
}
