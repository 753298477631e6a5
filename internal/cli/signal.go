package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// interruptible returns ctx cancelled by SIGINT or SIGTERM, so that a verb which builds something
// (up, bench, testbed, probe) can remove it before exiting; context.Cause names the signal. Every
// verb handles signals this one way.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// committed holds SIGINT and SIGTERM for good once a verb has passed its commit point (commit).
// Nothing reads it: a signal sent to it is dropped.
var committed = make(chan os.Signal, 1)

// commit ends the interruptible section that stop ends, at the verb's commit point: what it built
// is complete and stays, so a signal from here on must neither undo it nor end the process, which
// would exit 130 as if it had failed. stop alone would restore the default action, which kills the
// process, in the moments before it exits; so the signals stay caught (and ignored) until it
// exits, registered before stop lets go of them.
func commit(stop context.CancelFunc) {
	signal.Notify(committed, os.Interrupt, syscall.SIGTERM)
	stop()
}

// exitInterrupted is the status of a verb stopped by Ctrl-C (SIGINT or SIGTERM) that has said
// what it kept: the shell's 128 + SIGINT, as if the signal had ended the process.
const exitInterrupted = 130

// interruptedError is the error of a verb that ctx's signal stopped: the signal, then what the
// verb kept (format, args), exiting exitInterrupted.
func interruptedError(ctx context.Context, format string, args ...any) error {
	return &statusError{err: fmt.Errorf("%v: %s", context.Cause(ctx), fmt.Sprintf(format, args...)), status: exitInterrupted}
}
