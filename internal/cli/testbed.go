package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testbed"
)

func newTestbedCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testbed",
		Short: "Emulate a QJump cluster in network namespaces and reproduce the paper's experiments",
		Long: `testbed builds N hosts and one switch on this machine, each a network namespace, joined by
veth pairs. The switch is a Linux bridge whose egress ports have eight strict-priority queues of B
packets, classified on DSCP; every link is shaped to the emulated rate R. Hosts start without
QJump (one FIFO); --qjump enables it with the real 'qjump up' inside each host.

Everything is named with the prefix (default qjtb: namespaces qjtb-h1..qjtb-hN, qjtb-sw) and
removed by 'qjump testbed down', also what a crashed run left behind. Needs root.`,
		Example: `  qjump testbed up --hosts 4 --rate 100M --buffer 100
  qjump testbed exec 1 -- ping -c 3 198.18.0.2
  qjump testbed status
  qjump testbed down

  # the paper's experiments (each builds and removes its own testbed)
  qjump testbed run ping-iperf --quick --out /tmp/pi`,
	}
	requireSubcommand(cmd)
	cmd.AddCommand(newTestbedUpCommand(), newTestbedDownCommand(), newTestbedStatusCommand(),
		newTestbedExecCommand(), newTestbedRunCommand(), newTestbedReportCommand())
	return cmd
}

// testbedFlags are the emulated cluster's parameters, shared by up and run.
type testbedFlags struct {
	cfg testbed.Config
}

func newTestbedFlags(hosts int) *testbedFlags {
	return &testbedFlags{cfg: testbed.DefaultConfig(hosts)}
}

func (f *testbedFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.cfg.Hosts, "hosts", f.cfg.Hosts, "number of hosts, n (2 to 32)")
	fs.Var(&unitValue[model.Rate]{&f.cfg.Rate, model.ParseRate}, "rate", "emulated edge rate R of every link, e.g. 100M, 1G (at most 1Gb/s)")
	fs.IntVar(&f.cfg.Buffer, "buffer", f.cfg.Buffer, "B: packets each switch egress queue holds")
	fs.IntVar(&f.cfg.HostQueue, "host-queue", f.cfg.HostQueue, "packets the host egress FIFO holds")
	fs.StringVar((*string)(&f.cfg.Classify), "classify", string(f.cfg.Classify), "what the switch reads the level from: dscp or pcp")
	fs.StringVar(&f.cfg.Prefix, "prefix", testbed.DefaultPrefix, "prefix of every namespace and link")
}

func (f *testbedFlags) config() (testbed.Config, error) {
	c := f.cfg
	if err := c.Validate(); err != nil {
		return c, asFlagError(err)
	}
	return c, nil
}

type testbedUpOptions struct {
	flags *testbedFlags
	qjump string
}

func newTestbedUpCommand() *cobra.Command {
	opts := &testbedUpOptions{flags: newTestbedFlags(0)}
	cmd := &cobra.Command{
		Use:   "up --hosts N [--rate R] [--buffer B] [--qjump CONFIG]",
		Short: "Build the emulated cluster and leave it up",
		Long: `up builds the cluster and returns; the namespaces stay until 'qjump testbed down'. Host i is
198.18.0.i (198.18.0.0/15 is the benchmarking range). A second 'up' with the same prefix is
refused while one is up. --qjump CONFIG runs 'qjump up --config CONFIG' on every host.`,
		Example: `  qjump testbed up --hosts 4
  qjump testbed up --hosts 12 --rate 1G --buffer 200 --qjump cluster.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTestbedUp(opts, cmd.OutOrStdout())
		},
	}
	opts.flags.register(cmd.Flags())
	cmd.Flags().StringVar(&opts.qjump, "qjump", "", "enable QJump on every host with this 'qjump up' config file")
	_ = cmd.MarkFlagRequired("hosts")
	return cmd
}

func runTestbedUp(opts *testbedUpOptions, stdout io.Writer) error {
	c, err := opts.flags.config()
	if err != nil {
		return err
	}
	if opts.qjump != "" {
		if err := checkQJumpConfig(opts.qjump, c); err != nil {
			return err
		}
	}
	ctx, stop := interruptible(context.Background())
	defer stop()
	tb, err := testbed.Up(ctx, c)
	if err != nil {
		return fmt.Errorf("build testbed: %w", err)
	}
	if opts.qjump != "" {
		if err := tb.EnableQJump(ctx, []string{"--config", opts.qjump}); err != nil {
			_ = tb.Down()
			return fmt.Errorf("enable qjump: %w", err)
		}
		_ = testbed.MarkQJump(c.Prefix)
	}
	if ctx.Err() != nil {
		_ = tb.Down()
		return fmt.Errorf("build testbed: interrupted; removed what was built")
	}
	tb.Release()
	return printTestbedStatus(stdout, c.Prefix)
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

func newTestbedDownCommand() *cobra.Command {
	prefix := testbed.DefaultPrefix
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Remove the emulated cluster, and anything a crashed run left",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lock, err := testbed.Acquire(prefix)
			if err != nil {
				return err
			}
			if err := testbed.Cleanup(context.Background(), prefix); err != nil {
				lock.Release()
				return fmt.Errorf("remove testbed: %w", err)
			}
			lock.Remove()
			fmt.Fprintf(cmd.OutOrStdout(), "testbed %s: removed\n", prefix)
			return nil
		},
	}
	cmd.Flags().StringVar(&prefix, "prefix", prefix, "prefix of the testbed to remove")
	return cmd
}

func newTestbedStatusCommand() *cobra.Command {
	prefix := testbed.DefaultPrefix
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status [--json]",
		Short: "Show the emulated cluster: hosts, addresses, rate, buffer, QJump",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				s, err := testbed.ReadState(prefix)
				if err != nil {
					return err
				}
				return printJSON(cmd.OutOrStdout(), s)
			}
			return printTestbedStatus(cmd.OutOrStdout(), prefix)
		},
	}
	cmd.Flags().StringVar(&prefix, "prefix", prefix, "prefix of the testbed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the testbed's state (config, pid, created, qjump) as JSON")
	return cmd
}

func printTestbedStatus(w io.Writer, prefix string) error {
	s, err := testbed.ReadState(prefix)
	if err != nil {
		return err
	}
	c := s.Config
	n := testbed.Names{Prefix: prefix}
	fmt.Fprintf(w, "testbed %s: %d hosts, R=%s, switch queues of %d packets, classify on %s, QJump %s\n",
		prefix, c.Hosts, c.Rate, c.Buffer, c.Classify, testbed.OnOff(s.QJump))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tNAMESPACE\tADDRESS\tSWITCH PORT")
	for i := 1; i <= c.Hosts; i++ {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", i, n.HostNS(i), n.HostAddr(i), n.Port(i))
	}
	return tw.Flush()
}

func newTestbedExecCommand() *cobra.Command {
	prefix := testbed.DefaultPrefix
	cmd := &cobra.Command{
		Use:   "exec HOST -- CMD [ARG...]",
		Short: "Run a command inside host HOST's namespace (HOST is 1..N or its namespace name)",
		Example: `  qjump testbed exec 1 -- ping -c 3 198.18.0.2
  qjump testbed exec 2 -- qjump run --level 7 -- ping -c 3 198.18.0.1`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTestbedExec(prefix, args[0], args[1:])
		},
	}
	cmd.Flags().StringVar(&prefix, "prefix", prefix, "prefix of the testbed")
	return cmd
}

func runTestbedExec(prefix, host string, argv []string) error {
	s, err := testbed.ReadState(prefix)
	if err != nil {
		return err
	}
	n := testbed.Names{Prefix: prefix}
	i, err := strconv.Atoi(strings.TrimPrefix(host, prefix+"-h"))
	if err != nil || i < 1 || i > s.Config.Hosts {
		return usageErrorf("invalid HOST %q: need 1 to %d or %s1..%s%d", host, s.Config.Hosts, prefix+"-h", prefix+"-h", s.Config.Hosts)
	}
	full := testbed.InNS(n.HostNS(i), argv...)
	c := exec.Command(full[0], full[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exitCode(exit.ExitCode())
		}
		return fmt.Errorf("exec in %s: %w", n.HostNS(i), err)
	}
	return nil
}
