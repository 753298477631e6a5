package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/dataplane"
)

func newDownCommand() *cobra.Command {
	var dev string
	cmd := &cobra.Command{
		Use:   "down --dev IF",
		Short: "Detach QJump from an interface and remove everything up created",
		Long: `down removes what up created on the interface: the eBPF program and its hook (TCX link or
cls_bpf filter), the clsact qdisc if up added it, shape mode's HTB tree, and the pinned state. Other
qdiscs and filters stay. An interface that is not up is not an error.`,
		Example: `  qjump down --dev eth0
  ip netns exec host1 qjump down --dev eth0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDown(dev, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&dev, "dev", "", "interface to detach from, e.g. eth0")
	_ = cmd.MarkFlagRequired("dev")
	return cmd
}

func runDown(dev string, stderr io.Writer) error {
	_, err := dataplane.DeviceStatus(dev)
	wasUp := !errors.Is(err, dataplane.ErrNotUp)
	if err := dataplane.Down(dev); err != nil {
		return dataplaneError(err)
	}
	if wasUp {
		fmt.Fprintf(stderr, "qjump: down on %s\n", dev)
	} else {
		fmt.Fprintf(stderr, "qjump: %s was not up: nothing to do\n", dev)
	}
	return nil
}
