package cli

import (
	"github.com/spf13/cobra"
)

// newTwoPCCommand is the two-phase commit application of the 2pc experiment (Fig. 6), a hidden
// verb so that the same binary runs it inside every testbed namespace. Its outputs are documented
// in docs/testbed.md.
func newTwoPCCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "2pc",
		Short:  "Two-phase commit coordinator and server over tcp, udp with acks, or qjump (used by the testbed)",
		Hidden: true,
	}
	cmd.AddCommand(newTwoPCCoordinatorCommand(nil), newTwoPCServerCommand(nil))
	requireSubcommand(cmd)
	return cmd
}
