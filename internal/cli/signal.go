package cli

import (
	"context"
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
