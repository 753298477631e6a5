package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testbed"
)

type testbedUpOptions struct {
	flags *testbedFlags
	qjump string
}

func newTestbedUpCommand(runF func(*testbedUpOptions) error) *cobra.Command {
	opts := &testbedUpOptions{flags: newTestbedFlags()}
	cmd := &cobra.Command{
		Use:   "up --hosts N [--rate R] [--buffer B] [--qjump CONFIG]",
		Short: "Build the emulated cluster and leave it up",
		Long: `up builds the cluster and returns; the namespaces stay until 'qjump testbed down'. Host i is
198.18.0.i (198.18.0.0/15 is the benchmarking range). A second 'up' with the same prefix is
refused while one is up.

--qjump CONFIG runs 'qjump up --dev eth0 --mode MODE --mark CLASSIFY --config CONFIG' on every
host. MODE is the file's mode: (police or shape), shape where it names none. CLASSIFY is the field
the switch classifies on (--classify), or both where the file's mark: is both: a file whose mark:
is another is refused before anything is built, as is one whose table of that field (dscp: or
pcp:) gives a level a mark the switch reads as another level, one that tags frames with a
vlan_id: other than 0 (the hosts have no VLAN interfaces), or one whose hosts: or rate: are not
the testbed's.`,
		Example: `  qjump testbed up --hosts 4
  qjump testbed up --hosts 12 --rate 1G --buffer 200 --qjump cluster.yaml`,
		Args: noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runTestbedUp(cmd.Context(), opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	opts.flags.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.qjump, "qjump", "", "enable QJump on every host with this 'qjump up' config file (its mode, shape if none; its mark, if any, must be --classify's or both)")
	_ = cmd.MarkFlagRequired("hosts")
	return cmd
}

func runTestbedUp(ctx context.Context, opts *testbedUpOptions, stdout, stderr io.Writer) error {
	c, err := opts.flags.config()
	if err != nil {
		return err
	}
	var mode config.Mode
	var mark config.Mark
	if opts.qjump != "" {
		if mode, mark, err = checkQJumpConfig(opts.qjump, c); err != nil {
			return err
		}
	}
	if err := testbed.CheckPrivilege(); err != nil {
		return err
	}
	warn(stderr, opts.flags.warnings())
	ctx, stop := interruptible(ctx)
	defer stop()
	tb, err := testbed.Up(ctx, c)
	if err != nil {
		return builtOrInterrupted(ctx, fmt.Errorf("build testbed: %w", err))
	}
	if err := finishTestbed(ctx, tb, opts.qjump, mode, mark); err != nil {
		return builtOrInterrupted(ctx, errors.Join(err, tb.Down()))
	}
	// What qjump up said of the file's configuration on the hosts (review, helper-74: police
	// mode's warning on TCP and GSO was lost).
	warn(stderr, tb.UpWarnings)
	return printTestbedStatus(stdout, c.Prefix)
}

// finishTestbed enables QJump on the hosts in mode and mark with the config file qjumpConfig, if
// one is given, and releases tb as finished; a signal since ctx began fails it.
func finishTestbed(ctx context.Context, tb *testbed.Testbed, qjumpConfig string, mode config.Mode, mark config.Mark) error {
	if qjumpConfig != "" {
		if err := tb.EnableQJump(ctx, mode, []string{"--mark", string(mark), "--config", qjumpConfig}); err != nil {
			return fmt.Errorf("enable qjump: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := tb.Release(); err != nil {
		return fmt.Errorf("build testbed: %w", err)
	}
	return nil
}

// builtOrInterrupted is how testbed up fails with err once what it built is removed, or what
// could not be is said in err (a *testbed.NotRemovedError): as interrupted (exit 130) if a signal
// stopped it, else with err.
func builtOrInterrupted(ctx context.Context, err error) error {
	var left *testbed.NotRemovedError
	switch {
	case ctx.Err() != nil && errors.As(err, &left):
		return interruptedError(ctx, "%v", left)
	case ctx.Err() != nil:
		return interruptedError(ctx, "removed what was built")
	}
	return err
}

// checkQJumpConfig refuses a --qjump config that does not describe this testbed, and returns the
// mode its hosts run: the file's, or shape where it names none (what the testbed always ran, and
// what the experiments' bounds are for), and their mark: the field the switch classifies on, or
// both where the file marks both (a production file that pushes a PCP tag beside its DSCP, run
// as it is). In either mode `qjump up` replaces each host's root qdisc with classes under the
// config's R, so a config for another rate would silently reshape the host links, and one for
// another n gives wrong budgets. A mark other than the field the switch classifies on would put
// every packet in the switch's level-0 queue.
func checkQJumpConfig(path string, c testbed.Config) (config.Mode, config.Mark, error) {
	f, d, _, err := config.LoadFile(path)
	if missing := noFileError("qjump", path, err); missing != nil {
		return "", "", missing
	}
	if err != nil {
		// The file's own errors start with its path, which the flag's quote gives already.
		return "", "", usageErrorf("invalid --qjump %q: %s", path, strings.TrimPrefix(err.Error(), path+": "))
	}
	if m := d.Model; m.Hosts != c.Hosts || m.Rate != c.Rate {
		return "", "", usageErrorf("invalid --qjump %q: it has %d hosts at %s, the testbed %d hosts at %s: they must match",
			path, m.Hosts, m.Rate, c.Hosts, c.Rate)
	}
	// --mark wins over the file's mark: checked here, not ignored.
	mark := config.Mark(c.Classify)
	switch {
	case f.Mark != nil && d.Mark == config.MarkBoth:
		mark = config.MarkBoth
	case f.Mark != nil && d.Mark != mark:
		return "", "", usageErrorf("invalid --qjump %q: its mark is %s, and the testbed's switch classifies on %s (--classify): "+
			"need mark: %s, both, or no mark", path, d.Mark, c.Classify, c.Classify)
	}
	if err := checkLevelMarks(path, d, c.Classify); err != nil {
		return "", "", err
	}
	if mark.MarksPCP() && d.VLANID != 0 { // the mark the hosts run: --classify pcp's where the file names none
		// The hosts' eth0 has no VLAN interface over it: a frame tagged with an id other than 0
		// (a priority tag) is not theirs, and every packet was dropped without a word.
		return "", "", usageErrorf("invalid --qjump %q: its vlan_id is %d, and the testbed's hosts have no VLAN interfaces, so "+
			"they drop frames tagged with a VLAN id: need vlan_id: 0 (a priority tag, the default) with mark: %s",
			path, d.VLANID, mark)
	}
	if f.Mode == nil {
		d.Mode = config.Shape
	}
	// Autoclass needs police mode: a file with it and no mode is refused here, not on a host.
	if err := d.Validate(); err != nil {
		return "", "", usageErrorf("invalid --qjump %q: %v (the testbed runs shape mode where the file names no mode)", path, err)
	}
	return d.Mode, mark, nil
}

// checkLevelMarks refuses a --qjump file whose marks the switch cannot read the levels from: the
// mark was checked, and its table was not. Under --classify dscp the switch's u32 filters take a
// DSCP's class selector (its top three bits) as the level, so level l's code point must lie in
// CSl's class, 8l to 8l+7 (CSl itself, or an AF class inside it): dscp: {7: 46} sent level 7's
// traffic into level 5's queue. Under --classify pcp the switch takes the PCP as the level. The
// table of the field the switch does not classify on is not read (not marked, or, with mark:
// both, marked and ignored by the switch).
func checkLevelMarks(path string, d config.Dataplane, cls testbed.Classify) error {
	for l := 0; l < model.NumLevels; l++ {
		if dscp := d.DSCP[l]; cls == testbed.ClassifyDSCP && dscp>>3 != l {
			return usageErrorf("invalid --qjump %q: its dscp[%d] is %d, in CS%d's class, and the testbed's switch takes a DSCP's "+
				"class selector as the level (--classify dscp): need %d to %d for level %d (CS%d is %d)",
				path, l, dscp, dscp>>3, 8*l, 8*l+7, l, l, 8*l)
		}
		if pcp := d.PCP[l]; cls == testbed.ClassifyPCP && pcp != l {
			return usageErrorf("invalid --qjump %q: its pcp[%d] is %d, and the testbed's switch takes the PCP as the level "+
				"(--classify pcp): need %d for level %d", path, l, pcp, l, l)
		}
	}
	return nil
}
