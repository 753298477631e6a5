package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// isCobraUsage recognises the errors cobra itself returns for a bad command line (an unknown verb,
// wrong argument count), which it does not type.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "required flag"} {
		if strings.HasPrefix(msg, prefix) || strings.Contains(msg, " "+prefix) {
			return true
		}
	}
	return false
}

// requireSubcommand makes a command that only groups others (bench, testbed) refuse an unknown
// subcommand with exit 2 and one line. Cobra checks that only on the root (unknownVerb words it):
// a group with no run function prints its help and succeeds, so `qjump bench typo` would look like
// it worked. With no argument the group prints its help.
func requireSubcommand(cmd *cobra.Command) {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return unknownCommand(cmd, args[0])
	}
}
