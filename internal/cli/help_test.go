package cli

import (
	"io"
	"regexp"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpShowsNoZeroValues walks every verb: a default in --help is a value a user can read, never
// what Go prints for an unset one.
func TestHelpShowsNoZeroValues(t *testing.T) {
	zero := regexp.MustCompile(`\(default (0[a-z/]*|map\[\]|\[\]|<nil>|"")\)`)
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if m := zero.FindString(cmd.LocalFlags().FlagUsages()); m != "" {
			t.Errorf("%s --help shows %s", cmd.CommandPath(), m)
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCommand(io.Discard, io.Discard))
}
