// Package cli is the qjump command line, laid out as GitHub's gh CLI is: one file per verb, each
// with an options struct that newXCommand fills from the flags and arguments, and a run function
// runX(opts, ...) that does the work. newXCommand takes the run function to call (nil: runX), so
// tests check flag parsing by capturing the options, and call runX directly for the rest.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/version"
)

// Exit statuses: 2 for anything the user can fix by changing the command line or config, 1 for a
// failure at run time (a missing privilege, a kernel that refuses).
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// UsageError is bad input: the command line or a config file. It exits with status 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// flagValueError rewrites pflag's `invalid argument "x" for "--f" flag: cause` into the one-line
// form every other bad input takes, `invalid --f "x": what is allowed`. A cause from strconv or
// time (pflag's own int, float, bool and duration flags) says only "invalid syntax", so it is
// replaced by what the flag's type needs; the flag's help says the rest.
func flagValueError(err error) error {
	var ive *pflag.InvalidValueError
	var repeated *repeatedFlagError
	if !errors.As(err, &ive) {
		return err
	}
	if errors.As(err, &repeated) { // a value given twice, each valid: nothing to rewrite
		return repeated
	}
	allowed := ive.Unwrap().Error()
	var num *strconv.NumError
	switch {
	case ive.GetFlag().Value.Type() == "duration":
		allowed = "need a duration with a unit, e.g. 500ms, 2s, 1m"
	case errors.As(ive.Unwrap(), &num):
		switch ive.GetFlag().Value.Type() {
		case "bool":
			allowed = "need true or false"
		case "float32", "float64":
			allowed = "need a number"
		default:
			allowed = "need a whole number"
		}
		if errors.Is(num.Err, strconv.ErrRange) {
			allowed += " in range"
		}
	}
	return fmt.Errorf("invalid --%s %q: %s", ive.GetFlag().Name, ive.GetValue(), allowed)
}

// NewRootCommand builds the qjump command tree writing to stdout and stderr.
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "qjump",
		Short: "QJump: latency levels for datacenter traffic on stock Linux",
		Long: `qjump gives applications a choice of network service levels, from guaranteed latency at a
low rate (level 7) to line-rate throughput with no latency promise (level 0). Every host limits each
level to a byte budget per network epoch; switches serve levels in strict priority, so packets of a
higher level jump the queues that lower levels build (Grosvenor et al., NSDI 2015).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.HiddenDefaultCmd = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &UsageError{Err: flagValueError(unknownFlag(cmd, err))}
	})
	root.AddCommand(newCalcCommand(nil))
	root.AddCommand(newUpCommand(nil), newStatusCommand(nil), newReloadCommand(nil), newDownCommand(nil), newBenchCommand())
	root.AddCommand(newRunCommand(nil), newAssignCommand(nil), newUnassignCommand(nil))
	root.AddCommand(newTestbedCommand(), newProbeCommand())
	root.AddCommand(newAgentCommand())
	root.AddCommand(newTwoPCCommand(), newBarrierCommand(nil), newPTPCommand(nil))
	root.AddCommand(newSimCommand())
	root.AddCommand(newAdviseCommand(nil))
	root.AddCommand(newVersionCommand(nil))
	// --version prints what qjump version does.
	root.Version = version.Get().String()
	root.SetVersionTemplate("{{.Version}}\n")
	root.DisableSuggestions = true // unknownVerb suggests, in one line
	refuseRepeatedFlags(root)
	return root
}

// Main runs qjump with args and returns the process exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	root := NewRootCommand(stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	err = unknownVerb(root, missingFlagError(cmd, err))
	if err == nil {
		return exitOK
	}
	var code exitCode // a command's own status (qjump run): nothing to add
	if errors.As(err, &code) {
		return int(code)
	}
	fmt.Fprintf(stderr, "qjump: %v\n", err)
	return exitStatus(err)
}

func exitStatus(err error) int {
	var usage *UsageError
	var field *model.FieldError
	var status *statusError
	if errors.As(err, &status) {
		return status.status
	}
	if errors.As(err, &usage) || errors.As(err, &field) || isCobraUsage(err) {
		return exitUsage
	}
	return exitRuntime
}
