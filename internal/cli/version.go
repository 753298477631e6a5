package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/version"
)

type versionOptions struct {
	json bool
}

func newVersionCommand(runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Say which qjump this is: its version, commit and Go toolchain",
		Long: `version prints the module's version, the commit this binary was built from (and whether the
checkout had changes not committed) and the Go toolchain, as go build stamps them into a binary
built in a git checkout; "commit unknown" where nothing was stamped (go run). The same line is
qjump --version, the agent's qjump_agent_build_info metric carries the same figures, and every
results.json names its build under "build".`,
		Example: `  qjump version
  qjump version --json`,
		Args: noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runVersion(opts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object instead of the line")
	return cmd
}

func runVersion(opts *versionOptions, stdout io.Writer) error {
	v := version.Get()
	if opts.json {
		return printJSON(stdout, v)
	}
	_, err := fmt.Fprintln(stdout, v)
	return err
}
