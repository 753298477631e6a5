package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/testbed"
)

type testbedDownOptions struct {
	prefix string
}

func newTestbedDownCommand(runF func(*testbedDownOptions) error) *cobra.Command {
	opts := &testbedDownOptions{}
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Remove the emulated cluster, and anything a crashed run left",
		Args:  noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runTestbedDown(cmd.Context(), opts, cmd.OutOrStdout())
		},
	}
	prefixFlag(cmd.Flags(), &opts.prefix)
	return cmd
}

func runTestbedDown(ctx context.Context, opts *testbedDownOptions, stdout io.Writer) error {
	if err := testbed.CheckPrivilege(); err != nil {
		return err
	}
	lock, err := testbed.AcquireWaiting(opts.prefix)
	if err != nil {
		return err
	}
	wasUp := testbed.Exists(opts.prefix)
	if err := testbed.Cleanup(ctx, opts.prefix); err != nil {
		lock.Release()
		return fmt.Errorf("remove testbed: %w", err)
	}
	lock.Remove()
	if !wasUp {
		fmt.Fprintf(stdout, "testbed %s: none was up%s\n", opts.prefix, testbed.OthersUp(opts.prefix))
		return nil
	}
	fmt.Fprintf(stdout, "testbed %s: removed\n", opts.prefix)
	return nil
}
