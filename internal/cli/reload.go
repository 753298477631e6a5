package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
)

func newReloadCommand() *cobra.Command {
	var dev, file string
	cmd := &cobra.Command{
		Use:   "reload --dev IF --config FILE",
		Short: "Replace the configuration of a running interface atomically",
		Long: `reload swaps the configuration of an interface that is up, while traffic flows: the program
reads its whole configuration through one pointer per packet, so every packet sees either the old
or the new configuration, never a mix. Budgets restart under the new configuration; counters keep
counting. The mode (police or shape) cannot change: that needs down, then up.`,
		Example: `  qjump reload --dev eth0 --config /etc/qjump.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReload(dev, file, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&dev, "dev", "", "interface that is up, e.g. eth0")
	cmd.Flags().StringVar(&file, "config", "", "YAML configuration file (docs/configuration.md)")
	_ = cmd.MarkFlagRequired("dev")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

func runReload(dev, file string, stderr io.Writer) error {
	d, err := config.Load(file)
	if err != nil {
		return configError(err)
	}
	if d.Model.Hosts == 0 || d.Model.Rate == 0 {
		return usageErrorf("invalid --config %s: a reload needs hosts: and rate:", file)
	}
	if d, err = d.Solved(); err != nil {
		return configError(fmt.Errorf("%s: %w", file, err))
	}
	if err := dataplane.Reload(dev, d); err != nil {
		return dataplaneError(err)
	}
	fmt.Fprintf(stderr, "qjump: reloaded %s\n", dev)
	return nil
}
