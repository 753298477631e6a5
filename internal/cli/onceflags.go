package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// pflag keeps the last of a flag given twice, so `qjump up --dev eth0 --dev eth1` attached to
// eth1 and said nothing; a LEVEL=... list such as --factors given twice kept only the second list.
// Every flag but a real list (pflag's slice flags, whose values append) takes one value: a second,
// different one is refused, naming both. The same value twice is no ambiguity and passes.

// repeatedFlagError is a flag given a second, different value: bad input (exit 2).
type repeatedFlagError struct {
	name          string
	first, second string
}

func (e *repeatedFlagError) Error() string {
	return fmt.Sprintf("--%s given twice, %q and %q: give it once", e.name, e.first, e.second)
}

// onceValue is a flag's value that refuses a second, different Set. Type and String are the
// value's own, so --help, completion and pflag's typed getters see the flag unchanged.
type onceValue struct {
	pflag.Value
	name  string
	given *string // the first value; nil until the flag is given
}

func (v *onceValue) Set(s string) error {
	if v.given != nil && *v.given != s {
		return &repeatedFlagError{name: v.name, first: *v.given, second: s}
	}
	if err := v.Value.Set(s); err != nil {
		return err
	}
	v.given = &s
	return nil
}

// refuseRepeatedFlags makes every flag of cmd and of the verbs below it take one value, once, at
// the root, so that no verb can forget to. Flags cobra adds when it runs (--help, the help and
// completion verbs) are not wrapped: each is a switch whose repetition changes nothing.
func refuseRepeatedFlags(cmd *cobra.Command) {
	cmd.Flags().VisitAll(onceFlag)
	cmd.PersistentFlags().VisitAll(onceFlag)
	for _, sub := range cmd.Commands() {
		refuseRepeatedFlags(sub)
	}
}

func onceFlag(f *pflag.Flag) {
	switch f.Value.(type) {
	case *onceValue, pflag.SliceValue: // wrapped already (a shared flag), or a list that appends
		return
	}
	v := f.Value
	if need, ok := needsName[f.Name]; ok {
		v = &namedValue{Value: v, need: need}
	}
	f.Value = &onceValue{Value: v, name: f.Name}
	// pflag's help knows a zero default by the value's concrete type, which the wrapper hides;
	// by its text it knows "0" but not a duration's "0s", and would show "(default 0s)".
	if f.Value.Type() == "duration" && f.DefValue == "0s" {
		f.DefValue = "0"
	}
}

// needsName is, for the flags that name something in every verb that takes them, what an empty
// value lacks. Empty is never a name: it is most often an unset shell variable, and it went
// through as if the flag had been left out (status --dev "" showed every interface, down --dev ""
// said there was nothing to do) or failed on "" (up: no such interface "", agent: open :).
var needsName = map[string]string{
	"dev":    "need an interface's name, e.g. eth0",
	"config": "need a configuration file's path",
	// assign --cgroup "" was the cgroup v2 root: every process of the host on the level.
	"cgroup": "need a cgroup's path, e.g. system.slice/NAME.service",
	// --out "" went through as --out left out: advise and testbed run into results/NAME-TIME,
	// probe and barrier to stdout, sim fct nowhere.
	"out": "need a file's or directory's path",
	// Not a name, but empty the same way: run --sndbuf "" went through as no --sndbuf (review,
	// helper-98), where a user meant a size.
	"sndbuf": "need a size in bytes, e.g. 64k, or auto",
}

// namedValue is a flag's value that refuses to be set empty, saying what it needs instead.
type namedValue struct {
	pflag.Value
	need string
}

func (v *namedValue) Set(s string) error {
	if s == "" {
		return errors.New(v.need)
	}
	return v.Value.Set(s)
}
