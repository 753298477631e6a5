package experiment

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/qjump-net/qjump/internal/model"
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
	Flows map[string]int
	// Steady runs every point steady (FCTConfig.Steady): 4 to 30 times the time at high load.
	Steady  bool
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

// Warnings are what the sweep's schemes on its fabric make valid but probably unmeant
// (schemeWarnings), each said once, and a core that cannot carry its highest load.
func (c Fig9Config) Warnings() []string {
	var w []string
	for _, s := range c.Schemes {
		p := FCTConfig{Scheme: s, Fabric: c.Fabric}
		w = append(w, schemeWarnings(s, p.fabric(), p.qjump())...)
	}
	if len(c.Loads) > 0 {
		if cw := coreWarning(c.Fabric, slices.Max(c.Loads)); cw != "" {
			w = append(w, cw)
		}
	}
	return w
}

// Fig9Result holds every point that finished, in the order workload, load, scheme: all Planned
// of them unless the run was interrupted.
type Fig9Result struct {
	Config  Fig9Config   `json:"-"`
	Points  []*FCTResult `json:"points"`
	Planned int          `json:"-"`
}

// Interrupted says whether some planned point did not finish.
func (r *Fig9Result) Interrupted() bool { return len(r.Points) < r.Planned }

// Planned is the number of points of the sweep.
func (c Fig9Config) Planned() int { return len(c.Workloads) * len(c.Loads) * len(c.Schemes) }

// RunFig9 runs every point on Workers goroutines (see parallel).
func RunFig9(c Fig9Config, progress func(*FCTResult)) (*Fig9Result, error) {
	return RunFig9Context(context.Background(), c, progress)
}

// RunFig9Context is RunFig9 until ctx is done: then it returns the points that finished.
func RunFig9Context(ctx context.Context, c Fig9Config, progress func(*FCTResult)) (*Fig9Result, error) {
	cfgs, err := c.pointConfigs()
	if err != nil {
		return nil, err
	}
	points := make([]*FCTResult, len(cfgs))
	errs := make([]error, len(cfgs))
	finished := parallel(ctx, len(cfgs), c.Workers, func(i int) {
		points[i], errs[i] = RunFCT(cfgs[i])
	}, func(i int) {
		if progress != nil && errs[i] == nil {
			progress(points[i])
		}
	})
	res := &Fig9Result{Config: c, Planned: len(cfgs)}
	for i, ok := range finished {
		if !ok {
			continue
		}
		if errs[i] != nil {
			return nil, fmt.Errorf("point %s %s load %g: %w", cfgs[i].Scheme, cfgs[i].Workload.Name, cfgs[i].Load, errs[i])
		}
		res.Points = append(res.Points, points[i])
	}
	return res, nil
}

// pointConfigs are the sweep's points in the order workload, load, scheme.
func (c Fig9Config) pointConfigs() ([]FCTConfig, error) {
	var cfgs []FCTConfig
	for _, w := range c.Workloads {
		cdf, err := workload.Load(w)
		if err != nil {
			return nil, err
		}
		for _, l := range c.Loads {
			for _, s := range c.Schemes {
				cfgs = append(cfgs, FCTConfig{Scheme: s, Workload: cdf, Load: l, Flows: c.Flows[w], Seed: c.Seed, Fabric: c.Fabric,
					Steady: c.Steady})
			}
		}
	}
	return cfgs, nil
}

// Validate checks every point of the sweep before any runs: a sweep that cannot run is refused at
// once, not after its first points. Of what it checks, a user of qjump sim run sets only the
// flows (the loads and the fabric are the paper's), so a count whose arrivals would outrun the
// clock is a *model.FieldError of "flows"; anything else is an error of the point it names.
func (c Fig9Config) Validate() error {
	cfgs, err := c.pointConfigs()
	if err != nil {
		return err
	}
	for _, p := range cfgs { // the memory bound before the arrivals: at the sweep's loads it comes first
		if err := checkFlows(p.Flows); err != nil {
			return err
		}
	}
	if err := checkArrivals(cfgs); err != nil {
		return err
	}
	for _, p := range cfgs {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("point %s %s load %g: %v", p.Scheme, p.Workload.Name, p.Load, err)
		}
	}
	return nil
}

// checkArrivals refuses flows that would take more than maxArrivalSpan to arrive at some point,
// naming the flows and the most the slowest such point allows: FCTConfig.Validate's message says
// "raise --load or lower --flows", and sim run has no --load.
func checkArrivals(cfgs []FCTConfig) error {
	worst := -1
	for i, p := range cfgs {
		if p.arrivalSpan() > maxArrivalSpan && (worst < 0 || p.maxFlows() < cfgs[worst].maxFlows()) {
			worst = i
		}
	}
	if worst < 0 {
		return nil
	}
	p := cfgs[worst]
	return &model.FieldError{Field: "flows", Value: fmt.Sprint(p.Flows),
		Allowed: fmt.Sprintf("need at most %d flows per point: at the sweep's slowest arrivals, %s at load %g, %d flows would take %.3g simulated seconds to arrive, beyond the %.0f s a point's arrivals may span",
			p.maxFlows(), p.Workload.Name, p.Load, p.Flows, p.arrivalSpan(), maxArrivalSpan)}
}

// maxFlows is the most flows that arrive within maxArrivalSpan at the point's load (capped at
// 2⁵³, where a float64 stops counting every integer, so the conversion cannot overflow).
func (c *FCTConfig) maxFlows() int {
	f := c.fabric()
	n := math.Floor(maxArrivalSpan * workload.ArrivalRate(c.Workload, f.Hosts(), f.EdgeRate, c.Load))
	return int(min(n, 1<<53))
}
