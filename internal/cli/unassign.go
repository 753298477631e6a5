package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/apputil"
)

type unassignOptions struct {
	cgroup string
}

func newUnassignCommand(runF func(*unassignOptions) error) *cobra.Command {
	opts := &unassignOptions{}
	cmd := &cobra.Command{
		Use:   "unassign --cgroup PATH",
		Short: "Remove what qjump assign attached to a cgroup",
		Long: `unassign detaches and unpins everything ` + "`qjump assign`" + ` made for the cgroup and clears its
ceiling (--max-level). Sockets made before keep the priority they were given; new ones get the
kernel's default.`,
		Example: `  sudo qjump unassign --cgroup system.slice/memcached.service`,
		Args:    noArgs("cgroup"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runUnassign(opts, cmd.OutOrStdout())
		},
	}
	cgroupFlag(cmd.Flags(), &opts.cgroup)
	_ = cmd.MarkFlagRequired("cgroup")
	return cmd
}

func runUnassign(opts *unassignOptions, stdout io.Writer) error {
	root, release, err := apputil.CgroupRoot()
	if err != nil {
		return err
	}
	defer release()
	path, err := resolveCgroup(root, opts.cgroup)
	if err != nil {
		return err
	}
	if err := apputil.Unassign(path); errors.Is(err, apputil.ErrNotAssigned) {
		return fmt.Errorf("cgroup %s: %w", apputil.CgroupName(root, path), apputil.ErrNotAssigned)
	} else if err != nil {
		return dataplaneError(err)
	}
	fmt.Fprintf(stdout, "cgroup %s: unassigned\n", apputil.CgroupName(root, path))
	return nil
}
