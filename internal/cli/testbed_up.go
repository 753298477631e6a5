package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/config"
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
refused while one is up. --qjump CONFIG runs 'qjump up --config CONFIG' on every host.`,
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
	cmd.Flags().StringVar(&opts.qjump, "qjump", "", "enable QJump on every host with this 'qjump up' config file")
	_ = cmd.MarkFlagRequired("hosts")
	return cmd
}

func runTestbedUp(ctx context.Context, opts *testbedUpOptions, stdout, stderr io.Writer) error {
	c, err := opts.flags.config()
	if err != nil {
		return err
	}
	if opts.qjump != "" {
		if err := checkQJumpConfig(opts.qjump, c); err != nil {
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
	if err := finishTestbed(ctx, tb, opts.qjump); err != nil {
		_ = tb.Down()
		return builtOrInterrupted(ctx, err)
	}
	return printTestbedStatus(stdout, c.Prefix)
}

// finishTestbed enables QJump on the hosts with the config file qjumpConfig, if one is given, and
// releases tb as finished; a signal since ctx began fails it.
func finishTestbed(ctx context.Context, tb *testbed.Testbed, qjumpConfig string) error {
	if qjumpConfig != "" {
		if err := tb.EnableQJump(ctx, []string{"--config", qjumpConfig}); err != nil {
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

// builtOrInterrupted is how testbed up fails with err once what it built is removed: as
// interrupted (exit 130) if a signal stopped it, else with err.
func builtOrInterrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return interruptedError(ctx, "removed what was built")
	}
	return err
}

// checkQJumpConfig refuses a --qjump config that does not describe this testbed: in shape mode
// `qjump up` replaces each host's root qdisc with classes under the config's R, so a config for
// another rate would silently reshape the host links, and one for another n gives wrong budgets.
func checkQJumpConfig(path string, c testbed.Config) error {
	d, err := config.Load(path)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("invalid --qjump: %w", err)}
	}
	if m := d.Model; m.Hosts != c.Hosts || m.Rate != c.Rate {
		return usageErrorf("invalid --qjump %q: it has %d hosts at %s, the testbed %d hosts at %s: they must match",
			path, m.Hosts, m.Rate, c.Hosts, c.Rate)
	}
	return nil
}
