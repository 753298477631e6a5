package experiment

import (
	"fmt"

	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

// Fig9Config is the sweep of Fig. 9: both workloads, loads 0.1 to 0.8, the four schemes.
type Fig9Config struct {
	Workloads []string
	Loads     []float64
	Schemes   []Scheme
	// Flows per point for each workload. The full sweep uses 10,000 web-search flows (about 5,500
	// small ones, so 55 beyond the 99th percentile, and 300 over 10 MB) and 3,000 data-mining
	// flows (about 2,500 small, 25 beyond the 99th percentile, and 140 over 10 MB): a data-mining
	// flow carries 4.5 times the bytes of a web-search flow on average, and these counts make both
	// halves of the sweep cost about the same (≈100–140 M packet-hops per point) and the whole
	// sweep fit in 20 minutes on two cores.
	Flows   map[string]int
	Seed    uint64
	Workers int
	Fabric  topology.Config
}

// DefaultFig9 is the full sweep; quick is the CI-sized one.
func DefaultFig9(quick bool) Fig9Config {
	c := Fig9Config{
		Workloads: workload.Names,
		Loads:     []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8},
		Schemes:   Schemes,
		Flows:     map[string]int{"websearch": 10000, "datamining": 3000},
		Seed:      1, Workers: 2, Fabric: topology.PaperFabric(),
	}
	if quick {
		c.Loads = []float64{0.2, 0.5, 0.8}
		c.Flows = map[string]int{"websearch": 1000, "datamining": 500}
	}
	return c
}

// Fig9Result holds every point, in the order workload, load, scheme.
type Fig9Result struct {
	Config Fig9Config   `json:"-"`
	Points []*FCTResult `json:"points"`
}

// RunFig9 runs the points on Workers goroutines (see parallel).
func RunFig9(c Fig9Config, progress func(*FCTResult)) (*Fig9Result, error) {
	var cfgs []FCTConfig
	for _, w := range c.Workloads {
		cdf, err := workload.Load(w)
		if err != nil {
			return nil, err
		}
		for _, l := range c.Loads {
			for _, s := range c.Schemes {
				cfgs = append(cfgs, FCTConfig{Scheme: s, Workload: cdf, Load: l, Flows: c.Flows[w], Seed: c.Seed, Fabric: c.Fabric})
			}
		}
	}
	res := &Fig9Result{Config: c, Points: make([]*FCTResult, len(cfgs))}
	errs := make([]error, len(cfgs))
	parallel(len(cfgs), c.Workers, func(i int) {
		res.Points[i], errs[i] = RunFCT(cfgs[i])
	}, func(i int) {
		if progress != nil && errs[i] == nil {
			progress(res.Points[i])
		}
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("point %s %s load %.1f: %w", cfgs[i].Scheme, cfgs[i].Workload.Name, cfgs[i].Load, err)
		}
	}
	return res, nil
}
