package cli

import "github.com/spf13/cobra"

func newBenchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure qjump's own costs",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBenchDataplaneCommand())
	return cmd
}
