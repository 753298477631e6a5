package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
)

type reloadOptions struct {
	dev        string
	configFile string
}

func newReloadCommand(runF func(*reloadOptions) error) *cobra.Command {
	opts := &reloadOptions{}
	cmd := &cobra.Command{
		Use:   "reload --dev IF --config FILE",
		Short: "Replace the configuration of a running interface atomically",
		Long: `reload swaps the configuration of an interface that is up, while traffic flows: it loads a new
copy of the program with the new configuration as its constants and swaps it into the hook in one
step, so every packet sees either the old or the new configuration, never a mix. Budgets do not
restart: the new budget of each level applies
at once to the bytes its current epoch has already carried, so no epoch ever carries an old budget
plus a new one. Counters keep counting. The mode (police or shape) cannot change: that needs down,
then up.`,
		Example: `  qjump reload --dev eth0 --config /etc/qjump.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runReload(opts, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&opts.dev, "dev", "", "interface that is up, e.g. eth0")
	cmd.Flags().StringVar(&opts.configFile, "config", "", "YAML configuration file (docs/configuration.md)")
	_ = cmd.MarkFlagRequired("dev")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

func runReload(opts *reloadOptions, stderr io.Writer) error {
	dev, file := opts.dev, opts.configFile
	d, err := config.Load(file)
	if err != nil {
		return configError(err)
	}
	if d.Model.Hosts == 0 || d.Model.Rate == 0 {
		return usageErrorf("invalid --config %s: a reload needs hosts: and rate:", file)
	}
	if d, err = forDevice(d, dev, deviceMTU); err != nil {
		return err
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
