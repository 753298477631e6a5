package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/model"
)

type assignOptions struct {
	levelFlags
	cgroup string
}

func newAssignCommand(runF func(*assignOptions) error) *cobra.Command {
	opts := &assignOptions{}
	cmd := &cobra.Command{
		Use:   "assign --cgroup PATH --level L [--max-level L] [--sndbuf BYTES|auto] [--enforce]",
		Short: "Put every socket of an existing cgroup (a service, a container) on a QJump level",
		Long: `assign attaches eBPF programs to a cgroup v2 so that every IPv4/IPv6 socket made in it from
now on has priority L (QJump level L), as ` + "`qjump run --mode cgroup`" + ` does for one command. The
attachment is pinned under /sys/fs/bpf/qjump/cgroups and outlives qjump; it lasts until
` + "`qjump unassign`" + `. A cgroup removed while assigned leaves its pins and ceiling behind (every
packet still pays for the ceiling's lookup) until the next assign, or an unassign of its path,
removes them. Assigning again replaces every setting: one left out is not kept, and a --max-level
left out removes the ceiling (assign warns, naming it). Sockets that already exist keep their
priority. Needs root.

--max-level sets the cgroup's ceiling in the dataplane: its packets are never sent above that level,
whatever priority its programs set, on every device QJump is up on. This is what keeps a tenant
off the guaranteed level; unassign removes it with the rest.

PATH is a cgroup v2 directory, absolute or relative to the cgroup v2 root
(/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid system).`,
		Example: `  # a systemd service
  sudo qjump assign --cgroup system.slice/memcached.service --level 5

  # a container, with its own SO_PRIORITY calls refused and never above level 3
  sudo qjump assign --cgroup /sys/fs/cgroup/system.slice/docker-4f3c.scope --level 3 --enforce --max-level 3

  # undo
  sudo qjump unassign --cgroup system.slice/memcached.service`,
		Args: noArgs("cgroup"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runAssign(opts, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	cgroupFlag(fs, &opts.cgroup)
	opts.levelFlags.register(fs, levelFlagsHelp{whose: "the cgroup's",
		sndbuf: "SO_SNDBUF for the cgroup's TCP connections", enforce: "refuse the programs' own SO_PRIORITY so they stay on the level"})
	_ = cmd.MarkFlagRequired("cgroup")
	_ = cmd.MarkFlagRequired("level")
	return cmd
}

func runAssign(opts *assignOptions, stdout, stderr io.Writer) error {
	active := readActiveConfigs()
	s, err := opts.settings(active)
	if err != nil {
		return err
	}
	root, release, err := apputil.CgroupRoot()
	if err != nil {
		return err
	}
	defer release()
	path, err := assignedCgroup(root, opts.cgroup)
	if err != nil {
		return err
	}
	warnMapping(stderr, active, s)
	warn(stderr, noDataplaneWarning(active, s, true))
	name := apputil.CgroupName(root, path)
	was, err := apputil.AssignReplacing(path, s)
	if err != nil {
		return assignError(err, name, opts.cgroup)
	}
	fmt.Fprintf(stdout, "cgroup %s: new sockets at level %d", name, s.Level)
	if s.MaxLevel != nil {
		fmt.Fprintf(stdout, ", packets never above level %d", *s.MaxLevel)
		if was != nil && *was != *s.MaxLevel {
			fmt.Fprintf(stdout, " (the ceiling was --max-level %d)", *was)
		}
	}
	fmt.Fprintln(stdout)
	if was != nil && s.MaxLevel == nil {
		warn(stderr, []string{ceilingRemoved(name, *was)})
	}
	if above := apputil.AssignedAncestors(root, path); len(above) > 0 {
		// The kernel runs a cgroup's own programs first and its ancestors' after them, root-most
		// last, so that ancestor's level is the one new sockets keep: assign said level 6 and
		// sockets got the ancestor's 3 (review, helper-98).
		top := apputil.CgroupName(root, above[len(above)-1])
		warn(stderr, []string{fmt.Sprintf("%s is below %s, which qjump assign put on a level too: the kernel runs an "+
			"ancestor's programs after a cgroup's own, so new sockets of %s get %s's level, not level %d; assign the "+
			"cgroups below %s one by one instead, or unassign it", name, top, name, top, s.Level, top)})
	}
	if below := apputil.AssignedDescendants(path); len(below) > 0 {
		// The same order the other way: this cgroup's level now overrides theirs (review,
		// helper-100).
		names := make([]string, len(below))
		for i, b := range below {
			names[i] = apputil.CgroupName(root, b)
		}
		warn(stderr, []string{fmt.Sprintf("cgroups below %s are on levels of their own (%s): the kernel runs a cgroup's "+
			"programs after its descendants', so their new sockets get its level %d now, whatever their own; assign them alone, "+
			"or unassign %s", name, strings.Join(names, ", "), s.Level, name)})
	}
	return nil
}

// assignError is what apputil.Assign reports, with the cgroup named as the user knows it (name)
// rather than by its path, under a private root one of qjump's descriptors (/proc/self/fd/N/...):
// a refusal of --cgroup quotes it as given, anything else says which cgroup it was.
func assignError(err error, name, given string) error {
	var fe *model.FieldError
	if errors.As(err, &fe) && fe.Field == "cgroup" {
		fe.Value = given
	}
	err = dataplaneError(err)
	var usage *UsageError
	if errors.As(err, &usage) {
		return fmt.Errorf("assign: %w", err)
	}
	return fmt.Errorf("assign cgroup %s: %w", name, err)
}

// ceilingRemoved says that an assign without --max-level took away the ceiling the cgroup had:
// assigning again replaces every setting, and the ceiling is what keeps a tenant off the
// guaranteed level, so it does not go unsaid.
func ceilingRemoved(cgroup string, was model.Level) string {
	return fmt.Sprintf("cgroup %s: ceiling removed: its sockets may now set levels above %d (it was --max-level %d); "+
		"give --max-level %d again to keep it", cgroup, was, was, was)
}

// assignedCgroup reads assign's --cgroup: resolveCgroup, less the cgroup v2 root. The root's
// programs run after those of every cgroup below it (the kernel runs a socket's cgroup programs from
// its cgroup up to the root), so assigning it put every process of the host on the level, over the
// level of every run and assign; unassign still takes it, to undo that.
func assignedCgroup(root, cgroup string) (string, error) {
	path, err := resolveCgroup(root, cgroup)
	if err != nil {
		return "", err
	}
	if path == filepath.Clean(root) {
		return "", usageErrorf("invalid --cgroup %q: the cgroup v2 root: every process of the host would be on the level, "+
			"over the level of every cgroup below it; give a service's or a container's cgroup (for the host's "+
			"unclassified traffic, the dataplane has --default-level)", cgroup)
	}
	if rel, _ := filepath.Rel(root, path); rel == apputil.Slice || strings.HasPrefix(rel, apputil.Slice+string(filepath.Separator)) {
		// A run's cgroup goes with its run, and assign's pins were left behind it (review,
		// helper-98); the run's programs set its level already.
		return "", usageErrorf("invalid --cgroup %q: %s holds the cgroups of qjump run --mode cgroup, each of which "+
			"sets its level itself and goes with its run; give the run --level and --max-level", cgroup, apputil.Slice)
	}
	return path, nil
}

// cgroupFlag registers --cgroup, the cgroup that assign and unassign work on.
func cgroupFlag(fs *pflag.FlagSet, cgroup *string) {
	fs.StringVar(cgroup, "cgroup", "", "the cgroup v2 directory, absolute or relative to the cgroup v2 root")
}

// resolveCgroup reads --cgroup: a cgroup v2 directory that exists under root (apputil.CgroupRoot).
func resolveCgroup(root, cgroup string) (string, error) {
	path, err := apputil.ResolveCgroup(root, cgroup)
	if err != nil {
		return "", usageErrorf("invalid --cgroup %q: %v", cgroup, err)
	}
	return path, nil
}
