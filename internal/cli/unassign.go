package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

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
kernel's default.

A cgroup removed while assigned leaves its pins and ceiling behind, kept by a cgroup id its path no
longer gives: unassign of such a path removes what assign left of every cgroup removed since (as
the next assign does too), once the kernel has released them (their last socket closed).

Like down, unassign of a cgroup that has no assignment says so and succeeds: what it would
make true holds already.`,
		Example: `  sudo qjump unassign --cgroup system.slice/memcached.service`,
		Args:    noArgs("cgroup"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runUnassign(opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cgroupFlag(cmd.Flags(), &opts.cgroup)
	_ = cmd.MarkFlagRequired("cgroup")
	return cmd
}

func runUnassign(opts *unassignOptions, stdout, stderr io.Writer) error {
	root, release, err := apputil.CgroupRoot()
	if err != nil {
		return err
	}
	defer release()
	path, err := apputil.ResolveCgroup(root, opts.cgroup)
	if isRemoved(root, opts.cgroup) {
		return unassignRemoved(opts.cgroup, err, stdout)
	}
	if err != nil {
		return usageErrorf("invalid --cgroup %q: %v", opts.cgroup, err)
	}
	if err := apputil.Unassign(path); err == apputil.ErrNotAssigned { // bare: an error beside it is no success
		// As down of an interface that is not up: what is wanted holds already, so a removal
		// script (docs/deployment.md's, for every cgroup of the agent's file) can run it twice.
		fmt.Fprintf(stderr, "qjump: cgroup %s was not assigned: nothing to do\n", apputil.CgroupName(root, path))
		return nil
	} else if err != nil {
		return dataplaneError(err)
	}
	fmt.Fprintf(stdout, "cgroup %s: unassigned\n", apputil.CgroupName(root, path))
	return nil
}

// isRemoved says whether --cgroup names no directory at all, below the cgroup v2 root: a cgroup
// that may have been removed while assigned, whose pins and ceiling stay until a sweep.
func isRemoved(root, cgroup string) bool {
	path := apputil.CgroupPath(root, cgroup)
	_, err := os.Lstat(path)
	return errors.Is(err, os.ErrNotExist) && apputil.InCgroupRoot(root, path)
}

// unassignRemoved is unassign of a cgroup that is not there (notThere says so): its pins are kept
// by a cgroup id its path no longer gives, so it removes what assign left of every cgroup removed
// since, as the next assign would, and refuses the path only when there was nothing.
func unassignRemoved(cgroup string, notThere error, stdout io.Writer) error {
	n, err := apputil.SweepRemoved()
	if err != nil {
		return dataplaneError(err)
	}
	if n == 0 {
		return usageErrorf("invalid --cgroup %q: %v; nor is an assignment of a removed cgroup left to remove "+
			"(one whose sockets are still open goes once they close)", cgroup, notThere)
	}
	what := "1 cgroup"
	if n > 1 {
		what = fmt.Sprintf("%d cgroups", n)
	}
	// Pins are kept by cgroup id, which a gone path no longer gives: whether one of those swept
	// was this path's cannot be told, and the message says so rather than that it was (review,
	// helper-64: a mistyped path "was gone" after another cgroup's leftovers were swept).
	fmt.Fprintf(stdout, "no cgroup %s here: removed what assign left of %s removed since, their pins and any ceiling "+
		"(by cgroup id: which paths they had cannot be told; a removed cgroup whose sockets are still open keeps its own "+
		"until they close)\n", cgroup, what)
	return nil
}
