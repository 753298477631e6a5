package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/testbed"
)

type testbedStatusOptions struct {
	prefix string
	json   bool
}

func newTestbedStatusCommand(runF func(*testbedStatusOptions) error) *cobra.Command {
	opts := &testbedStatusOptions{}
	cmd := &cobra.Command{
		Use:   "status [--json]",
		Short: "Show the emulated cluster: hosts, addresses, rate, buffer, QJump",
		Args:  noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runTestbedStatus(opts, cmd.OutOrStdout())
		},
	}
	prefixFlag(cmd.Flags(), &opts.prefix)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the testbed's state (config, pid, created, qjump) as JSON")
	return cmd
}

// testbedStatusJSON is the testbed's recorded state and what QJump runs on each host.
type testbedStatusJSON struct {
	testbed.State
	Hosts []testbed.HostQJump `json:"hosts"`
}

func runTestbedStatus(opts *testbedStatusOptions, stdout io.Writer) error {
	if !opts.json {
		return printTestbedStatus(stdout, opts.prefix)
	}
	s, err := testbed.ReadState(opts.prefix)
	if err != nil {
		return err
	}
	hosts, unread := hostsQJump(testbed.Names{Prefix: opts.prefix}, s.Config.Hosts)
	if unread != nil { // each host's error says why, in the field that says it of one host
		hosts = make([]testbed.HostQJump, s.Config.Hosts)
		for i := range hosts {
			hosts[i] = testbed.HostQJump{Host: i + 1, Error: unread.Error()}
		}
	}
	return printJSON(stdout, testbedStatusJSON{State: s, Hosts: hosts})
}

// hostsQJump is what QJump runs on each host, or why it cannot be read: entering a host's
// namespace takes the testbed's privilege, and without it every host said "enter network
// namespace ...: operation not permitted" in its QJUMP column. The rest of status reads the
// state file, which anyone may.
func hostsQJump(n testbed.Names, hosts int) ([]testbed.HostQJump, error) {
	if err := testbed.CheckPrivilege(); err != nil {
		return nil, err
	}
	return n.QJumpStatus(hosts), nil
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
	if err := s.Incomplete(); err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	} else if s.Building {
		fmt.Fprintf(w, "being built, or run by an experiment, by pid %d\n", s.PID)
	}
	hosts, unread := hostsQJump(n, c.Hosts)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "HOST\tNAMESPACE\tADDRESS\tSWITCH PORT"
	if unread == nil {
		header += "\tQJUMP"
	}
	fmt.Fprintln(tw, header)
	for i := 1; i <= c.Hosts; i++ {
		row := fmt.Sprintf("%d\t%s\t%s\t%s", i, n.HostNS(i), n.HostAddr(i), n.Port(i))
		if unread == nil {
			row += "\t" + hostQJumpCell(hosts[i-1])
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if unread != nil {
		fmt.Fprintf(w, "QJUMP not shown: reading it enters each host's network namespace, and %v\n", unread)
		return nil
	}
	if testbed.ConfigsDiffer(hosts) {
		fmt.Fprintln(w, "warning: the hosts run different QJump configurations (see QJUMP): the model's latency bound does not hold")
	}
	return nil
}

// hostQJumpCell: "off", or the mode, generation and configuration hash.
func hostQJumpCell(h testbed.HostQJump) string {
	switch {
	case h.Error != "":
		return "error: " + h.Error
	case !h.Up:
		return "off"
	case !h.Attached:
		return "detached (pins left)"
	}
	return fmt.Sprintf("%s, generation %d, config %s", h.Mode, h.Generation, h.ConfigHash)
}
