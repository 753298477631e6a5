package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// newProbeCommand is the testbed's latency probe, a hidden verb so that the same binary runs it
// inside every namespace. Its sample files are documented in docs/testbed.md.
func newProbeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "probe",
		Short:  "UDP latency probe with kernel timestamps (used by the testbed)",
		Hidden: true,
	}
	cmd.AddCommand(newProbeServerCommand(nil), newProbeClientCommand(nil), newProbeMemcachedCommand(nil))
	requireSubcommand(cmd)
	return cmd
}

// probeRun is what every probe verb does once its options are valid: measure until done or
// interrupted, then write the samples as CSV to out (stdout if empty). A failed measurement writes
// nothing, unless keepPartial(err): the requests a memcached run answered before failing are data,
// and so are the arrivals of a server whose socket dropped some (its exit status still fails).
func probeRun[T any](ctx context.Context, out string, stdout io.Writer, keepPartial func(error) bool,
	measure func(context.Context) (T, error), write func(io.Writer, T) error) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	samples, err := measure(ctx)
	if err != nil && !keepPartial(err) {
		return err
	}
	werr := writeTo(out, stdout, func(w io.Writer) error { return write(w, samples) })
	if err != nil {
		return err
	}
	return werr
}

func always(error) bool { return true }

func never(error) bool { return false }

func writeTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// readyFile returns a Ready callback that creates path (nil if path is empty): callers wait for
// the file instead of sending traffic to find out whether a server listens.
func readyFile(path, listen string, stderr io.Writer) func() {
	if path == "" {
		return nil
	}
	return func() {
		if err := os.WriteFile(path, []byte(listen+"\n"), 0o644); err != nil {
			fmt.Fprintf(stderr, "qjump: write --ready file: %v\n", err)
		}
	}
}
