package cli

import (
	"context"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/model"
)

type testbedStallsOptions struct {
	out       string
	run       time.Duration
	threshold time.Duration
	awake     bool
}

// newTestbedStallsCommand is the machine's stall monitor (internal/machine), a hidden verb
// so that `testbed run` can run it as a process of its own beside an experiment.
func newTestbedStallsCommand() *cobra.Command {
	opts := &testbedStallsOptions{run: 6 * time.Hour, threshold: machine.DefaultThreshold}
	cmd := &cobra.Command{
		Use:   "stalls --out FILE [--for D] [--threshold D] [--awake]",
		Short: "Measure when this machine's CPUs stop running, until interrupted (used by testbed run)",
		Long: `stalls wakes a real-time thread on every CPU each millisecond and records every wake-up later
than --threshold as a stall of that CPU, until SIGINT/SIGTERM, until its standard input closes
(so that it ends with the run that started it, however that ends) or until --for has passed;
then it writes the stalls (cpu, from_ns, to_ns, wall clock) as CSV to --out. Standard input
ends it only when it is a pipe or a terminal: from /dev/null or a file (cron, nohup, CI) it runs
for --for. Needs root.`,
		Example: `  # the machine's stalls over 15 s, with its CPUs free to halt and then held awake
  sleep 15 | qjump testbed stalls --out halting.csv
  sleep 15 | qjump testbed stalls --out awake.csv --awake`,
		Args: noArgs(""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTestbedStalls(cmd.Context(), opts, cmd.InOrStdin())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.out, "out", "", "write the stalls here as CSV")
	// Refused as it parses, so that the value is quoted as typed, as every flag's is (--for 0 said 0s).
	f.Var(&unitValue[time.Duration]{&opts.run, positiveDuration("need a duration above 0, with a unit, e.g. 15s")}, "for",
		"stop after this long at most, above 0")
	f.DurationVar(&opts.threshold, "threshold", opts.threshold, "a wake-up later than this is a stall")
	f.BoolVar(&opts.awake, "awake", false, "hold the CPUs awake (polling when idle) while measuring, as testbed run does")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runTestbedStalls(ctx context.Context, opts *testbedStallsOptions, stdin io.Reader) error {
	if opts.threshold < machine.MinThreshold {
		return usageErrorf("invalid --threshold %s: want at least %s, a tenth of the monitor's tick", opts.threshold, model.DurationText(machine.MinThreshold))
	}
	// Before --out is created: without the privilege, nothing is measured, and nothing is left.
	if err := machine.CheckPrivilege(opts.awake); err != nil {
		return err
	}
	// Opened before measuring, so that a path that cannot be written is refused at once, not
	// after hours of it.
	out, err := os.Create(opts.out)
	if err != nil {
		return usageErrorf("invalid --out %q: %v", opts.out, err)
	}
	defer out.Close() // on the paths that do not write it; a second Close is harmless
	ctx, stop := interruptible(ctx)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, opts.run)
	defer cancel()
	if watchesStdin(stdin) {
		go func() {
			_, _ = io.Copy(io.Discard, stdin)
			cancel()
		}()
	}
	if opts.awake {
		release, err := machine.HoldCPUsAwake()
		if err != nil {
			return err
		}
		defer release()
	}
	stalls, err := machine.Record(ctx, opts.threshold)
	if err != nil {
		return err
	}
	return machine.WriteCSVTo(out, stalls)
}

// watchesStdin says whether the end of stdin should end the measurement: a pipe (testbed run's,
// or `sleep 15 |`) or a terminal (Ctrl-D) ends when its writer means it to. /dev/null or a
// regular file is at its end at once, which ended every measurement run without a terminal (a
// script's `< /dev/null`, cron, CI) before it began, whatever --for said.
func watchesStdin(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	if !ok {
		return true
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	switch m := fi.Mode(); {
	case m&(os.ModeNamedPipe|os.ModeSocket) != 0:
		return true
	case m&os.ModeCharDevice != 0:
		_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
		return err == nil
	}
	return false
}
