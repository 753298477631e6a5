package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/version"
)

type versionOptions struct {
	json bool
}

func newVersionCommand(runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Say which qjump this is: its version, commit, Go toolchain and eBPF program",
		Long: `version prints the module's version, the commit this binary was built from (and whether the
checkout had changes not committed) and the Go toolchain, as go build stamps them into a binary
built in a git checkout (make stamps it where the directory is a checkout of its own that git reads;
"commit unknown" elsewhere, and with go run; a go install from the module proxy has its version),
and the build of the eBPF program it loads (the first 12 hex digits of the SHA-256 of its
object). The first line is qjump --version; the agent's qjump_agent_build_info metric carries the
same, every results.json names its build under "build", and qjump status says when an interface
runs another build's program (an upgrade since up: qjump reload loads this one's).`,
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
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object instead of the lines")
	return cmd
}

// versionJSON is qjump version --json: the build, and the eBPF program it loads.
type versionJSON struct {
	version.Info
	Program string `json:"program"`
}

func runVersion(opts *versionOptions, stdout io.Writer) error {
	v := versionJSON{Info: version.Get(), Program: dataplane.ProgramBuild()}
	if opts.json {
		return printJSON(stdout, v)
	}
	_, err := fmt.Fprintf(stdout, "%s\neBPF program %s\n", v.Info, v.Program)
	return err
}
