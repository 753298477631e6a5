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
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the testbed's state (config, pid, created, qjump, building, removing), its condition, each host's QJump and qjump_hosts as JSON (docs/cli.md)")
	return cmd
}

// testbedStatusJSON is the testbed's recorded state and what QJump runs on each host.
type testbedStatusJSON struct {
	testbed.State
	Hosts []testbed.HostQJump `json:"hosts"`
	// QJumpHosts is how many hosts run QJump now (testbed.Running): State's qjump says only
	// whether up enabled it, and a host's own qjump up or down changes that since. Null when a
	// host could not be read (without root, or its namespace is gone): how many run it is not
	// known.
	QJumpHosts *int `json:"qjump_hosts"`
	// Condition is what the record and its lock say (testbed.Condition): the table's warning, for
	// a script, which could not tell a live maker's testbed from a killed one's (helper-77).
	Condition string `json:"condition"`
}

func runTestbedStatus(opts *testbedStatusOptions, stdout io.Writer) error {
	if !opts.json {
		return printTestbedStatus(stdout, opts.prefix)
	}
	s, err := testbed.ReadState(opts.prefix)
	if err != nil {
		return err
	}
	s, cond, err := s.Probe() // before the hosts, as the table does
	if err != nil {
		return err
	}
	js := testbedStatusJSON{State: s, Condition: cond.String()}
	hosts, unread := hostsQJump(testbed.Names{Prefix: opts.prefix}, s.Config.Hosts)
	switch {
	case unread != nil: // each host's error says why, in the field that says it of one host
		hosts = make([]testbed.HostQJump, s.Config.Hosts)
		for i := range hosts {
			hosts[i] = testbed.HostQJump{Host: i + 1, Error: unread.Error()}
		}
	case testbed.Unreadable(hosts) == 0: // how many run QJump is known only when every host was read
		running := testbed.Running(hosts)
		js.QJumpHosts = &running
	}
	js.Hosts = hosts
	return printJSON(stdout, js)
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
	// Probed before the hosts are read, which takes a while, and the state it gives is what the
	// rest of status says: probed after, a maker that finished in between was called killed.
	s, cond, err := s.Probe()
	if err != nil {
		return err
	}
	c := s.Config
	n := testbed.Names{Prefix: prefix}
	hosts, unread := hostsQJump(n, c.Hosts)
	fmt.Fprintf(w, "testbed %s: %d hosts, R=%s, switch queues of %d packets, classify on %s, %s\n",
		prefix, c.Hosts, c.Rate, c.Buffer, c.Classify, qjumpHeadline(s, hosts, unread))
	if line := conditionLine(s, cond); line != "" {
		fmt.Fprintln(w, line)
	}
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
	for _, warning := range hostsWarnings(hosts) {
		fmt.Fprintln(w, "warning: "+warning)
	}
	return nil
}

// hostsWarnings are what status warns of in what the hosts run: hosts with QJump beside hosts
// without, hosts that could not be read, and different configurations.
func hostsWarnings(hosts []testbed.HostQJump) []string {
	var out []string
	on, unreadable := testbed.Running(hosts), testbed.Unreadable(hosts)
	read := len(hosts) - unreadable
	switch {
	case on == 0 || on == read:
	case unreadable == 0:
		out = append(out, fmt.Sprintf("QJump runs on %d of %d hosts (see QJUMP): the others' traffic is neither marked nor limited, "+
			"so the model's latency bound does not hold", on, len(hosts)))
	default:
		out = append(out, fmt.Sprintf("QJump runs on %d of the %d hosts that could be read (see QJUMP): the others' traffic is "+
			"neither marked nor limited, so the model's latency bound does not hold", on, read))
	}
	if unreadable > 0 {
		out = append(out, fmt.Sprintf("%d of %d hosts could not be read (see QJUMP): whether they run QJump is not known", unreadable, len(hosts)))
	}
	if testbed.ConfigsDiffer(hosts) {
		out = append(out, "the hosts run different QJump configurations (see QJUMP): the model's latency bound does not hold")
	}
	return out
}

// conditionLine is what status says under its headline of a testbed in condition cond: who uses
// it, or a warning that it is remains, or may be; "" for a finished testbed.
func conditionLine(s testbed.State, cond testbed.Condition) string {
	switch cond {
	case testbed.InUse:
		return fmt.Sprintf("being built, or run by an experiment, by pid %d", s.PID)
	case testbed.BeingRemoved:
		return "being removed by the qjump that holds its lock"
	}
	if err := s.Unusable(cond); err != nil {
		return "warning: " + err.Error()
	}
	return ""
}

// qjumpHeadline is what the hosts run, as status's first line says it: "QJump on", "QJump off" or
// "QJump on 2 of 3 hosts". It said whether up had enabled QJump, which a host's own qjump up or
// down changes since. Without the privilege to read the hosts, it is that, said as such. Hosts
// that could not be read are neither: counted as off, those a killed down had removed made it
// "QJump on 1 of 3 hosts".
func qjumpHeadline(s testbed.State, hosts []testbed.HostQJump, unread error) string {
	if unread != nil {
		return "QJump " + testbed.OnOff(s.QJump) + " when built"
	}
	on, unreadable := testbed.Running(hosts), testbed.Unreadable(hosts)
	if unreadable > 0 {
		return fmt.Sprintf("QJump on %d, off on %d, cannot be read on %d of %d hosts (see QJUMP)",
			on, len(hosts)-on-unreadable, unreadable, len(hosts))
	}
	switch on {
	case 0:
		return "QJump off"
	case len(hosts):
		return "QJump on"
	default:
		return fmt.Sprintf("QJump on %d of %d hosts", on, len(hosts))
	}
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
