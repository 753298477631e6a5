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

// exitInterrupted is the status of a verb stopped by Ctrl-C (SIGINT or SIGTERM) that has said
// what it kept: the shell's 128 + SIGINT, as if the signal had ended the process.
const exitInterrupted = 130

// interruptedError is the error of a verb that ctx's signal stopped: the signal, then what the
// verb kept (format, args), exiting exitInterrupted.
func interruptedError(ctx context.Context, format string, args ...any) error {
	return &statusError{err: fmt.Errorf("%v: %s", context.Cause(ctx), fmt.Sprintf(format, args...)), status: exitInterrupted}
}
