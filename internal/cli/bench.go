package cli

import "github.com/spf13/cobra"

func newBenchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure qjump's own costs",
	}
	requireSubcommand(cmd)
	cmd.AddCommand(newBenchDataplaneCommand(nil))
	return cmd
}
