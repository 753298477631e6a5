package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/dataplane"
)

type downOptions struct {
	dev string
}

func newDownCommand(runF func(*downOptions) error) *cobra.Command {
	opts := &downOptions{}
	cmd := &cobra.Command{
		Use:   "down --dev IF",
		Short: "Detach QJump from an interface and remove everything up created",
		Long: `down removes what up created on the interface: the eBPF program and its hook (TCX link or
cls_bpf filter), the clsact qdisc if up added it, the HTB egress tree up builds in either mode (the
root qdisc that was there before is put back), and the pinned state. Other qdiscs and filters
stay. An interface that is not up is not an error; a name that is no interface here, and
has no QJump state, is bad input (exit 2). The state of an interface that went away while QJump
was up on it is removed by its name. If QJump's state was lost while its egress tree (or clsact
filter) stayed on the interface, down removes those and says so.`,
		Example: `  qjump down --dev eth0
  ip netns exec host1 qjump down --dev eth0`,
		Args: noArgs("dev"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runDown(cmd.Context(), opts, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&opts.dev, "dev", "", "interface to detach from, e.g. eth0")
	_ = cmd.MarkFlagRequired("dev")
	return cmd
}

func runDown(ctx context.Context, opts *downOptions, stderr io.Writer) error {
	dev := opts.dev
	_, err := deviceState(dev)
	if err != nil && !errors.Is(err, dataplane.ErrNotUp) && !linkExists(dev) {
		return dataplaneError(err) // no such interface, or a gone one's state that cannot be read (root)
	}
	wasUp := !errors.Is(err, dataplane.ErrNotUp)
	var left string
	if !wasUp {
		if left, err = dataplane.LeftOver(dev); err != nil {
			return dataplaneError(err)
		}
	}
	// A signal in the middle would leave the device half given back: hold it until down is done.
	ctx, stop := interruptible(ctx)
	defer stop()
	if err := dataplane.Down(dev); err != nil {
		if ctx.Err() != nil {
			return errors.Join(fmt.Errorf("%v while %s went down", context.Cause(ctx), dev), dataplaneError(err))
		}
		return dataplaneError(err)
	}
	switch {
	case wasUp:
		fmt.Fprintf(stderr, "qjump: down on %s\n", dev)
	case left != "":
		fmt.Fprintf(stderr, "qjump: %s was not up, but had %s with no QJump state: removed it; the kernel's "+
			"default qdisc is back (the tree up had replaced was in the lost state: put it back by hand if it was not the default)\n", dev, left)
	default:
		fmt.Fprintf(stderr, "qjump: %s was not up: nothing to do\n", dev)
	}
	if ctx.Err() != nil {
		return interruptedError(ctx, "down had finished on %s", dev)
	}
	return nil
}
