package cli

import (
	"testing"

	"github.com/spf13/cobra"
)

// parseOptions builds a verb with newCommand, runs it on args as cobra would (flags, arguments,
// required flags) and returns the options its run function would get, without running it: flag
// parsing is tested apart from run logic, and needs no kernel.
func parseOptions[T any](t *testing.T, newCommand func(runF func(*T) error) *cobra.Command, args ...string) *T {
	t.Helper()
	var got *T
	cmd := newCommand(func(opts *T) error { got = opts; return nil })
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	if got == nil {
		t.Fatalf("parse %v: the run function was not called", args)
	}
	return got
}
