package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/experiment"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

func newSimCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Simulate QJump, TCP, DCTCP and pFabric on a datacenter fabric (Fig. 9, Fig. 11)",
		Long: `sim is a deterministic packet-level simulator of the paper's 144-host leaf-spine fabric
(Fig. 8): flow completion times of TCP, DCTCP, pFabric and QJump under the web-search and
data-mining workloads (Fig. 9), and the latency bound under fan-in at scale (Fig. 11). The
simulated QJump limiter uses the model and epoch arithmetic of the dataplane. Same seed, same
results, byte for byte: flows files, statistics and plots, on any number of workers (only the
wall times, speed figures and start time differ from run to run). See docs/reproducing.md and docs/performance.md.`,
	}
	requireSubcommand(cmd)
	cmd.AddCommand(newSimFCTCommand(), newSimRunCommand(), newSimReportCommand())
	return cmd
}

// fabricFlags are the topology flags; the defaults are the paper's fabric.
type fabricFlags struct {
	racks, hostsPerRack, spines, buffer int
	edge, core                          model.Rate
	linkDelay, hostDelay                sim.Time
	// typed is the rates and delays as the user typed them, for a refusal of several together
	// and the warning of a rate without a unit.
	typed typedTexts
}

func newFabricFlags() *fabricFlags {
	p := topology.PaperFabric()
	return &fabricFlags{
		racks: p.Racks, hostsPerRack: p.HostsPerRack, spines: p.Spines,
		edge: model.Rate(p.EdgeRate), core: model.Rate(p.CoreRate),
		linkDelay: p.LinkDelay, hostDelay: p.HostDelay,
	}
}

func (f *fabricFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.racks, "racks", f.racks, "racks (top-of-rack switches)")
	fs.IntVar(&f.hostsPerRack, "hosts-per-rack", f.hostsPerRack, "hosts per rack")
	fs.IntVar(&f.spines, "spines", f.spines, "spine switches; every ToR links to every spine")
	fs.Var(&unitValue[model.Rate]{&f.edge, parseSimRate}, "edge-rate", "host link rate, 1M to 2T, e.g. 10G")
	fs.Var(&unitValue[model.Rate]{&f.core, parseSimRate}, "core-rate", "ToR–spine link rate, 1M to 2T, e.g. 40G")
	fs.Var(simDelayValue{&f.linkDelay}, "link-delay", "propagation delay of every link, e.g. 200ns, to the picosecond (0.5ns, 500ps), at most 1s")
	fs.Var(simDelayValue{&f.hostDelay}, "host-delay", "host stack delay added on each host link crossing, e.g. 2.5us, to the picosecond, at most 1s")
	fs.IntVar(&f.buffer, "buffer", 0, "packets per switch port and host NIC, per level at a QJump host (0: the scheme's: 150 for tcp, dctcp, qjump; 24 for pfabric); dctcp needs more than K=65, pfabric at least 2 (its window cap is the buffer less one)")
	f.typed.keep(fs, "edge-rate", "core-rate", "link-delay", "host-delay")
}

// parseSimRate reads --edge-rate and --core-rate and refuses, as they parse, a rate outside the
// simulator's bounds, so that pflag quotes the value as typed; a number without a unit is said to
// be bits per second whether it is refused (--edge-rate 10) or taken (warnings).
func parseSimRate(s string) (model.Rate, error) {
	r, err := model.ParseRate(s)
	if err != nil {
		return 0, err
	}
	if sim.Rate(r) < topology.MinRate || sim.Rate(r) > topology.MaxRate {
		return 0, rateOutside(topology.RateAllowed, s, r, "G")
	}
	return r, nil
}

// warnings are what the fabric flags gave that is valid but suspicious: a rate without a unit.
func (f *fabricFlags) warnings() []string { return f.typed.unitlessRates("edge-rate", "core-rate") }

func (f *fabricFlags) config() (topology.Config, error) {
	c := topology.Config{
		Racks: f.racks, HostsPerRack: f.hostsPerRack, Spines: f.spines,
		EdgeRate: sim.Rate(f.edge), CoreRate: sim.Rate(f.core),
		LinkDelay: f.linkDelay, HostDelay: f.hostDelay,
		Buffer: f.buffer,
	}
	switch {
	case f.racks < 1:
		return c, usageErrorf("invalid --racks %d: need at least 1", f.racks)
	case f.hostsPerRack < 1:
		return c, usageErrorf("invalid --hosts-per-rack %d: need at least 1", f.hostsPerRack)
	case f.spines < 1:
		return c, usageErrorf("invalid --spines %d: need at least 1", f.spines)
	case !productWithin(f.racks, f.hostsPerRack, experiment.MaxHosts):
		return c, usageErrorf("invalid --racks %d --hosts-per-rack %d: need at most %d hosts in all (each simulated host takes about 1.5 kB before any traffic)",
			f.racks, f.hostsPerRack, experiment.MaxHosts)
	case f.racks*f.hostsPerRack < 2:
		return c, usageErrorf("invalid --racks %d --hosts-per-rack %d: need at least 2 hosts in all", f.racks, f.hostsPerRack)
	case !productWithin(f.racks, f.spines, experiment.MaxCoreLinks):
		return c, usageErrorf("invalid --racks %d --spines %d: need at most %d ToR-spine links (racks × spines), each a pair of simulated switch ports",
			f.racks, f.spines, experiment.MaxCoreLinks)
	case f.buffer < 0:
		return c, usageErrorf("invalid --buffer %d: need 0 (the scheme's) or a number of packets", f.buffer)
	}
	return c, nil
}

// productWithin says whether a×b ≤ limit for positive a and b. It divides rather than multiplies,
// so --racks 4294967296 --hosts-per-rack 4294967296 cannot overflow into a small product.
func productWithin(a, b, limit int) bool {
	return a <= limit/b
}
