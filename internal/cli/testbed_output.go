package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// errOutputClosed is why a run stops when the reader of its output went away: `qjump testbed
// run ... | head` used to be killed by SIGPIPE at the next progress line, with its testbed up.
var errOutputClosed = errors.New("its output was closed (the reader of the pipe exited)")

// stoppableRun is the context of a run that Ctrl-C or SIGTERM stops (interruptible) and that a
// closed output stops the same way (stopOnClosedOutput), with the writers to use and one stop
// for both: testbed run's and advise's.
func stoppableRun(ctx context.Context, stdout, stderr io.Writer) (_ context.Context, out, progress io.Writer, stop func()) {
	ctx, interruptStop := interruptible(ctx)
	ctx, out, progress, release := stopOnClosedOutput(ctx, stdout, stderr)
	return ctx, out, progress, func() { release(); interruptStop() }
}

// stopOnClosedOutput makes a closed standard output or error stop a run the way Ctrl-C does, so
// that it removes its testbed: while it holds, a write to a pipe whose reader exited returns
// EPIPE instead of killing the process (Go's runtime kills it unless SIGPIPE is notified), and
// the writers it returns cancel ctx when they get EPIPE. The signal is caught, not ignored, so
// the programs the run starts still get the default SIGPIPE. It stays caught until the process
// exits: the error the run ends with is written after release, and SIGPIPE there would still kill
// the process (exit 141, not the 130 of a stopped run). release cancels ctx.
func stopOnClosedOutput(ctx context.Context, stdout, stderr io.Writer) (_ context.Context, out, progress io.Writer, release func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	signal.Notify(outputClosed, syscall.SIGPIPE)
	return ctx, cancelOnEPIPE{stdout, cancel}, cancelOnEPIPE{stderr, cancel}, func() { cancel(nil) }
}

// outputClosed holds SIGPIPE for good once a run has caught it; nothing reads it, as committed.
var outputClosed = make(chan os.Signal, 1)

// cancelOnEPIPE is w, cancelling its run once a write finds the reader gone.
type cancelOnEPIPE struct {
	w      io.Writer
	cancel context.CancelCauseFunc
}

func (c cancelOnEPIPE) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		c.cancel(errOutputClosed)
	}
	return n, err
}
