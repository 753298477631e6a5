package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/suggest"
)

// The mistakes a command line most often has are a word off: a verb or flag misspelt (stat,
// --host), a flag with one dash (-dev, as Go's own tools take it), a flag's value without its flag
// (qjump down eth0). Each gets one line that names what was wrong and the likely fix, instead of
// cobra's bare "unknown" or its several lines of suggestions.

// noArgs is the Args check of a verb that takes no arguments. A stray word is usually the value of
// a flag left out, so when the verb has one flag that such a word belongs to (its device, its
// cgroup) and it was not given, the message offers it; otherwise it says where the settings go.
func noArgs(valueOf string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		if valueOf != "" && !cmd.Flags().Changed(valueOf) {
			return usageErrorf("%s takes no arguments, got %q: did you mean --%s %s?", verb(cmd), args[0], valueOf, args[0])
		}
		return usageErrorf("%s takes no arguments, got %q: every setting is a flag (see %s --help)",
			verb(cmd), args[0], cmd.CommandPath())
	}
}

// unknownCommand is the error for a word that names none of a group's verbs.
func unknownCommand(group *cobra.Command, typed string) error {
	var names []string
	for _, c := range group.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return usageErrorf("unknown command %q for %q%s (see %s --help)", typed, group.CommandPath(),
		suggest.DidYouMean(suggest.Closest(typed, names), ""), group.CommandPath())
}

// unknownVerb rewrites cobra's error for a first word that names no verb, which cobra makes itself
// (with suggestions off: `unknown command "x" for "qjump"`), as unknownCommand does for the groups.
// The root stays a command that does not run, so that `qjump help x` still says it knows no x.
func unknownVerb(root *cobra.Command, err error) error {
	var typed, path string
	var usage *UsageError
	if err == nil || errors.As(err, &usage) {
		return err
	}
	if n, _ := fmt.Sscanf(err.Error(), "unknown command %q for %q", &typed, &path); n == 2 && path == root.Name() {
		return unknownCommand(root, typed)
	}
	return err
}

// unknownFlag rewrites pflag's error for a flag the command does not have: a long flag gets the
// nearest of the command's flags, a group of shorthands that spells one of them (-dev) is that flag
// with one dash too few. Other errors are returned as they are.
func unknownFlag(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if group := ne.GetSpecifiedShortnames(); group != "" {
		if long := oneDash(cmd, group); long != "" {
			return fmt.Errorf("unknown flag -%s for %q: flags take two dashes: --%s", long, cmd.CommandPath(), long)
		}
		name, _, _ := strings.Cut(group, "=")
		return fmt.Errorf("unknown flag -%s for %q%s (see %s --help)", group, cmd.CommandPath(),
			suggest.DidYouMean(suggest.Closest(name, names), "--"), cmd.CommandPath())
	}
	name := ne.GetSpecifiedName()
	return fmt.Errorf("unknown flag --%s for %q%s (see %s --help)", name, cmd.CommandPath(),
		suggest.DidYouMean(suggest.Closest(name, names), "--"), cmd.CommandPath())
}

// oneDash is the long flag that a group of shorthands spells with one dash too few, with its
// "=value" if it had one; empty if none. pflag has taken the group's first letters when they are
// shorthands of the command (-hosts=3 starts with -h, help), so a shorthand in front of what is
// left is tried too.
func oneDash(cmd *cobra.Command, group string) string {
	tries := []string{group}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Shorthand != "" {
			tries = append(tries, f.Shorthand+group)
		}
	})
	for _, t := range tries {
		name, _, _ := strings.Cut(t, "=")
		if len(name) > 1 && cmd.Flags().Lookup(name) != nil {
			return t
		}
	}
	return ""
}

// verb is the command's path without the program's name (down, sim fct), for a message that
// starts with it after the "qjump: " every message has.
func verb(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return cmd.Name()
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}
