package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/testbed"
)

type testbedExecOptions struct {
	prefix  string
	host    string   // 1..N or the host's namespace name
	command []string // what runs in the host's namespace
}

func newTestbedExecCommand(runF func(*testbedExecOptions) error) *cobra.Command {
	opts := &testbedExecOptions{}
	cmd := &cobra.Command{
		Use:   "exec HOST -- CMD [ARG...]",
		Short: "Run a command inside host HOST's namespace (HOST is 1..N or its namespace name)",
		Long: `exec runs CMD inside host HOST's network namespace (HOST is 1..N or its namespace name), with
this terminal's input and output, and exits with its status. A CMD of 'qjump' is this very
program, the one the testbed runs inside its hosts, whether or not a qjump is on PATH (a qjump
built with 'go build -o bin/qjump' usually is not).`,
		Example: `  qjump testbed exec 1 -- ping -c 3 198.18.0.2
  qjump testbed exec 2 -- qjump run --level 7 --mode cgroup -- ping -c 3 198.18.0.1`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageErrorf("testbed exec needs a HOST and a command to run in it: qjump testbed exec HOST -- CMD [ARG...]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.host, opts.command = args[0], args[1:]
			if runF != nil {
				return runF(opts)
			}
			return runTestbedExec(opts)
		},
	}
	prefixFlag(cmd.Flags(), &opts.prefix)
	return cmd
}

func runTestbedExec(opts *testbedExecOptions) error {
	// Entering a host's namespace needs the testbed's privileges: without them nsenter's own
	// "reassociate to namespace 'ns/net' failed" spoke, or "no testbed is up" when none was.
	if err := testbed.CheckPrivilege(); err != nil {
		return err
	}
	prefix, host := opts.prefix, opts.host
	s, err := testbed.ReadState(prefix)
	if err != nil {
		return err
	}
	s, cond, err := s.Probe()
	if err != nil {
		return err
	}
	// Remains may lack hosts, addresses or QJump: a command there would fail or measure the wrong
	// thing, so exec says what status says of them. A testbed being built, or run by an
	// experiment, is one to look into.
	if err := s.Unusable(cond); err != nil {
		return err
	}
	n := testbed.Names{Prefix: prefix}
	i, err := strconv.Atoi(strings.TrimPrefix(host, prefix+"-h"))
	if err != nil || i < 1 || i > s.Config.Hosts {
		return usageErrorf("invalid HOST %q: need 1 to %d or %s1..%s%d", host, s.Config.Hosts, prefix+"-h", prefix+"-h", s.Config.Hosts)
	}
	full := testbed.InNS(n.HostNS(i), execArgv(opts.command)...)
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

// execArgv is the command exec runs: a bare "qjump" is this program (testbed.Binary), so that
// the documented 'qjump testbed exec 1 -- qjump run --level 7 -- ping ...' works from a qjump
// that is not on PATH, where nsenter failed with "failed to execute qjump".
func execArgv(command []string) []string {
	if len(command) == 0 || command[0] != "qjump" {
		return command
	}
	return append([]string{testbed.Binary}, command[1:]...)
}
