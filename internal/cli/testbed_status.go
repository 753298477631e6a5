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
		Args:  cobra.NoArgs,
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

func runTestbedStatus(opts *testbedStatusOptions, stdout io.Writer) error {
	if !opts.json {
		return printTestbedStatus(stdout, opts.prefix)
	}
	s, err := testbed.ReadState(opts.prefix)
	if err != nil {
		return err
	}
	return printJSON(stdout, s)
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
