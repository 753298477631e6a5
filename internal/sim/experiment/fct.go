package experiment

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/qjump"
	"github.com/qjump-net/qjump/internal/sim/tcp"
	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

// FCTConfig is one point of Fig. 9: a scheme, a workload at a load, a number of flows.
type FCTConfig struct {
	Scheme   Scheme
	Workload *workload.CDF
	Load     float64 // offered load, a fraction of the hosts' edge capacity
	Flows    int
	Seed     uint64
	Fabric   topology.Config // Buffer and HostBuffer 0: the scheme's default
	// QJump is the limiters' configuration; zero: PaperQJump for the fabric. Flows go on levels
	// by the paper's sizes (LevelForSize) whatever it holds.
	QJump model.Config
	// Steady keeps flows arriving after the N-th, as background that is simulated and never
	// counted, until every one of the N has finished: each of them then runs to its end at the
	// offered load, where without it the flows still running after the N-th arrival finish in a
	// network that empties, which flatters large flows most (docs/reproducing.md, "What a point
	// measures"). It costs the background's packets: 4 to 30 times the wall time at load 0.8.
	Steady bool
	// Horizon bounds simulated time after the N-th arrival; flows not done by then are reported
	// as unfinished. 0: 10 s.
	Horizon sim.Time
	// Progress, when set, is kept up to date while the point runs.
	Progress *Progress
}

// Validate checks what a user can get wrong.
func (c *FCTConfig) Validate() error {
	if !(c.Load > 0 && c.Load < 1) {
		return &model.FieldError{Field: "load", Value: fmt.Sprint(c.Load), Allowed: "need a fraction of the edge capacity, 0 < load < 1"}
	}
	if err := checkFlows(c.Flows); err != nil {
		return err
	}
	if err := checkRates(c.Fabric); err != nil {
		return err
	}
	if err := c.fabric().Validate(); err != nil {
		return fmt.Errorf("fabric (%s): %w", c.Fabric, err)
	}
	if err := c.checkPadding(); err != nil {
		return err
	}
	if err := c.checkResolution(); err != nil {
		return err
	}
	if span := c.arrivalSpan(); span > maxArrivalSpan {
		return &model.FieldError{Field: "load", Value: fmt.Sprint(c.Load),
			Allowed: fmt.Sprintf("need a load at which %d flows arrive within %.0f simulated seconds (they would take %.3g s): raise --load or lower --flows",
				c.Flows, maxArrivalSpan, span)}
	}
	if err := checkBuffer(c.Scheme, c.fabric()); err != nil {
		return err
	}
	if c.Scheme == QJump {
		// Within the fabric's bounds (a rate of at least topology.MinRate, MaxHosts) the model
		// takes scheme qjump on every fabric (TestQJumpTakesEveryFabricAllowed): a guard.
		return c.qjump().Validate()
	}
	return nil
}

// Warnings are what the point's configuration makes valid but probably unmeant
// (schemeWarnings, and a core that cannot carry the load). c must be valid.
func (c *FCTConfig) Warnings() []string {
	w := schemeWarnings(c.Scheme, c.fabric(), c.qjump())
	if cw := coreWarning(c.Fabric, c.Load); cw != "" {
		w = append(w, cw)
	}
	return w
}

// MaxFlows bounds the flows of a point. Every flow the point starts is kept until it ends, about
// 0.4 kB each with its sender, receiver and row (measured: `printf '1460,1\n' >one.csv;
// /usr/bin/time -f %M qjump sim fct --scheme tcp --workload one.csv --flows N --load 0.5` gave
// 82 MB of resident memory at N = 100,000 and 212 MB at 400,000, 0.43 kB a flow more), so the
// bound is some 400 MB, a steady point's
// background flows more, and hours of wall time for a workload's large flows; it is a hundred
// times the flows fig9 gives a point, and far from the 2³¹ that 32-bit flow IDs number.
const MaxFlows = 1_000_000

// FlowsAllowed is what a point's flows may be, and why.
var FlowsAllowed = fmt.Sprintf("need 1 to %d flows: each flow a point starts is kept until the point ends, about 0.4 kB of memory each", MaxFlows)

// checkFlows refuses a point's flows outside 1 to MaxFlows.
func checkFlows(flows int) error {
	if flows < 1 || flows > MaxFlows {
		return &model.FieldError{Field: "flows", Value: fmt.Sprint(flows), Allowed: FlowsAllowed}
	}
	return nil
}

// checkRates refuses a link rate outside topology's bounds as a field error of the flag that sets
// it, which the fabric's own Validate cannot name.
func checkRates(f topology.Config) error {
	for _, r := range []struct {
		field string
		rate  sim.Rate
	}{{"edge-rate", f.EdgeRate}, {"core-rate", f.CoreRate}} {
		if r.rate < topology.MinRate || r.rate > topology.MaxRate {
			return &model.FieldError{Field: r.field, Value: model.Rate(r.rate).String(), Allowed: topology.RateAllowed}
		}
	}
	return nil
}

// MinIdealFCT is the shortest ideal FCT a point may have. Flows are timed to the nanosecond (as
// flows.csv writes them), and at 100 ns the rounding moves a normalised FCT by at most 1 %; an
// ideal FCT that rounds to 0 would make it infinite.
const MinIdealFCT = 100 * sim.Nanosecond

// checkResolution refuses a fabric on which the smallest flow, one full packet (sizes are drawn
// in whole packets), alone on its shortest path completes faster than MinIdealFCT. Host 1 is on
// host 0's shortest path: in its rack when a rack holds two hosts, across a spine otherwise.
func (c *FCTConfig) checkResolution() error {
	f := c.fabric()
	wire := tcp.WireSize(tcp.MSS, 0)
	ideal := topology.IdealFCTFrames(f.Path(0, 1), wire, wire, 1)
	if ideal >= MinIdealFCT {
		return nil
	}
	in := []model.Input{{Field: "edge-rate", Value: model.Rate(f.EdgeRate).String()}}
	if f.HostsPerRack == 1 {
		in = append(in, model.Input{Field: "core-rate", Value: model.Rate(f.CoreRate).String()})
	}
	in = append(in, model.Input{Field: "link-delay", Value: f.LinkDelay.String()}, model.Input{Field: "host-delay", Value: f.HostDelay.String()})
	return &model.FieldError{Field: in[0].Field, Value: in[0].Value, Together: in,
		Allowed: fmt.Sprintf("a one-packet flow alone on the idle fabric would complete in %s, and flows are timed to the nanosecond: "+
			"need an ideal FCT of at least %s, so that the rounding moves a normalised FCT by at most 1 %%: lower the rates or raise the delays",
			ideal, MinIdealFCT)}
}

// checkPadding refuses a load that the workload's sizes, drawn in whole packets, push to 1 or
// more of the edge capacity: the arrival rate comes from the CDF's mean (as the pFabric scripts
// do), so flows padded to whole packets offer Load × DrawnMean/Mean. Web search and data mining
// pad by under 0.04 %; a CDF whose sizes are in packets, not bytes, reads as flows of a few
// bytes each, padded many times over.
func (c *FCTConfig) checkPadding() error {
	ratio := c.Workload.DrawnMean() / c.Workload.Mean()
	if c.Load*ratio < 1 {
		return nil
	}
	in := []model.Input{{Field: "load", Value: fmt.Sprint(c.Load)}, {Field: "workload", Value: c.Workload.Name}}
	return &model.FieldError{Field: in[0].Field, Value: in[0].Value, Together: in,
		Allowed: fmt.Sprintf("the workload's sizes are drawn in whole %d-byte packets, so its flows average %.0f B against the CDF's %.0f B "+
			"and would offer %.3g times the load, %.3g of the edge capacity: need a load below %.3g, or sizes in bytes if the CDF gives them in packets",
			tcp.MSS, c.Workload.DrawnMean(), c.Workload.Mean(), ratio, c.Load*ratio, 1/ratio)}
}

// maxArrivalSpan bounds how long, in simulated seconds, a point's flows take to arrive: the
// picosecond clock ends after 106 days, and a load of 10⁻¹² wrapped it around.
const maxArrivalSpan = 1e6

// arrivalSpan is the expected time, in seconds, the flows take to arrive at the load.
func (c *FCTConfig) arrivalSpan() float64 {
	f := c.fabric()
	return float64(c.Flows) / workload.ArrivalRate(c.Workload, f.Hosts(), f.EdgeRate, c.Load)
}

func (c *FCTConfig) fabric() topology.Config {
	f := c.Fabric
	if f.Buffer == 0 {
		f.Buffer = c.Scheme.DefaultBuffer()
	}
	if f.HostBuffer == 0 {
		// ns-2's scripts give host links the switches' queue; QJump's host port gives each
		// level that much, as the dataplane gives each level's leaf the device's queue length.
		f.HostBuffer = f.Buffer
	}
	return f
}

func (c *FCTConfig) qjump() model.Config {
	if c.QJump.Hosts == 0 {
		return PaperQJump(c.fabric().Hosts(), c.fabric().EdgeRate)
	}
	return c.QJump
}

// FlowRow is one flow of the output.
type FlowRow struct {
	ID      int32   `json:"id"`
	Src     int     `json:"src"`
	Dst     int     `json:"dst"`
	Size    int64   `json:"size_bytes"`
	StartUs float64 `json:"start_us"`
	// Done says the flow completed before the horizon; FCTUs means nothing without it. It is a
	// flag of its own rather than an FCTUs of 0, which a flow timed to the nanosecond can round to.
	Done     bool    `json:"done"`
	FCTUs    float64 `json:"fct_us"`
	IdealUs  float64 `json:"ideal_us"` // alone on the idle fabric
	Level    uint8   `json:"level"`
	Timeouts int32   `json:"timeouts"`
}

// Normalised is FCT / ideal FCT.
func (r FlowRow) Normalised() float64 { return r.FCTUs / r.IdealUs }

// Perf is how fast the simulator ran a point.
type Perf struct {
	WallSeconds      float64 `json:"wall_s"`
	SimulatedSeconds float64 `json:"simulated_s"`
	Events           uint64  `json:"events"`
	PacketHops       uint64  `json:"packet_hops"`
	Packets          int     `json:"packets_allocated"`
	// BucketPs is the event list's bucket width, which the fabric's size and the host's L2 set:
	// it changes the speed, never the results (sim.NewEventListScaled).
	BucketPs int64 `json:"bucket_ps"`
}

// EventsPerSecond is events per wall second.
func (p Perf) EventsPerSecond() float64 { return float64(p.Events) / p.WallSeconds }

// HopsPerSecond is packet-hops per wall second.
func (p Perf) HopsPerSecond() float64 { return float64(p.PacketHops) / p.WallSeconds }

// FCTResult is one point's flows and statistics.
type FCTResult struct {
	Scheme     Scheme    `json:"scheme"`
	Workload   string    `json:"workload"`
	Load       float64   `json:"load"`
	Seed       uint64    `json:"seed"`
	Flows      []FlowRow `json:"-"`
	Stats      FCTStats  `json:"stats"`
	Unfinished int       `json:"unfinished"`
	// Drops counts every packet the ports (and qjump-ns2's limiters) dropped, a steady point's
	// background flows' included.
	Drops uint64 `json:"drops"`
	// Background is the number of flows that arrived after the N-th and were not counted (a
	// steady point's; 0 otherwise).
	Background int `json:"background_flows"`
	// RealisedLoad is the load the point's flows offered: Load is what their arrivals were drawn
	// for, and a few thousand heavy-tailed sizes can carry well more or less (RealisedLoad).
	RealisedLoad float64 `json:"realised_load"`
	Perf         Perf    `json:"perf"`
}

// point is one simulation being run.
type point struct {
	cfg   *FCTConfig
	fab   topology.Config
	qj    model.Config
	el    *sim.EventList
	pool  *sim.PacketPool
	net   *topology.Fabric
	gen   *workload.Generator
	tcfg  tcp.Config
	flows []*tcp.Flow
	// policers are qjump-ns2's limiters, one per flow, whose drops count with the ports'.
	policers []*qjump.FlowPolicer
	// ns2Interval is qjump-ns2's interval at the fabric's edge rate (NS2IntervalAt).
	ns2Interval sim.Time
	done        int
	next        workload.FlowSpec
	// horizon is when the point gives up on unfinished flows, set at the N-th arrival;
	// pastHorizon says that the point's next event is that moment rather than an arrival.
	horizon     sim.Time
	pastHorizon bool
}

// RunFCT simulates one point.
func RunFCT(cfg FCTConfig) (*FCTResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	pt := &point{cfg: &cfg, fab: cfg.fabric(), qj: cfg.qjump(), el: sim.NewEventListScaled(float64(cfg.fabric().Hosts()) / 144), pool: &sim.PacketPool{},
		tcfg: cfg.Scheme.transport(cfg.fabric().Buffer)}
	pt.ns2Interval = NS2IntervalAt(pt.fab.EdgeRate)
	phases := rand.New(rand.NewPCG(cfg.Seed, 4))
	pt.net = topology.Build(pt.el, pt.fab, cfg.Scheme.ports(pt.el, pt.pool, pt.qj, phases))
	pt.gen = workload.NewGenerator(cfg.Workload, pt.fab.Hosts(), pt.fab.EdgeRate, cfg.Load, cfg.Seed)
	pt.next = pt.gen.Next()
	pt.el.Schedule(pt.next.Start, pt)
	pt.el.Run(sim.Never)
	// Run returns when the last flow completes or, if one never does, once the event list runs
	// past the horizon after the N-th arrival (checked by the arrival source below).
	res := pt.result()
	res.Perf = Perf{
		WallSeconds: time.Since(start).Seconds(), SimulatedSeconds: pt.el.Now().Seconds(),
		Events: pt.el.Events(), PacketHops: pt.el.Hops, Packets: pt.pool.Allocated(),
		BucketPs: int64(pt.el.BucketWidth()),
	}
	return res, nil
}

// DoNextEvent starts the flow that arrives now and schedules the next arrival: up to the N-th,
// or, in a steady point, on as background until the N have finished (FCTConfig.Steady). Either
// way the point gives up at the horizon after the N-th arrival.
func (pt *point) DoNextEvent() {
	if pt.pastHorizon {
		// The horizon has passed with flows unfinished.
		pt.el.Stop()
		return
	}
	pt.startFlow(pt.next)
	if len(pt.flows) == pt.cfg.Flows {
		h := pt.cfg.Horizon
		if h == 0 {
			h = 10 * sim.Second
		}
		pt.horizon = pt.el.Now() + h
	}
	if len(pt.flows) < pt.cfg.Flows || pt.cfg.Steady {
		pt.next = pt.gen.Next()
		if len(pt.flows) < pt.cfg.Flows || pt.next.Start <= pt.horizon {
			pt.el.Schedule(pt.next.Start, pt)
			return
		}
	}
	pt.pastHorizon = true
	pt.el.Schedule(pt.horizon, pt)
}

// measured says whether f is one of the point's N flows rather than background.
func (pt *point) measured(f *tcp.Flow) bool { return int(f.ID) < pt.cfg.Flows }

func (pt *point) startFlow(spec workload.FlowSpec) {
	f := &tcp.Flow{ID: int32(len(pt.flows)), Src: spec.Src, Dst: spec.Dst, Size: spec.Size,
		Packets: tcp.PacketsFor(spec.Size), Start: pt.el.Now()}
	pt.flows = append(pt.flows, f)
	if pt.measured(f) {
		pt.cfg.Progress.flowStarted(pt.el.Now())
	} else {
		pt.cfg.Progress.backgroundStarted()
	}
	salt := pt.cfg.Seed
	// The receiver's ACK route ends at the sender, which does not exist yet: set it after.
	rcv := tcp.NewReceiver(pt.el, pt.pool, f, nil, pt.flowDone)
	route := pt.net.Route(f.Src, f.Dst, pt.net.ECMP(f.ID, false, salt), rcv)
	switch pt.cfg.Scheme {
	case QJump:
		f.Level = LevelForSize(spec.Size)
	case QJumpNS2:
		var budget int64
		f.Level, budget = NS2Level(spec.Size)
		p := qjump.NewFlowPolicer(pt.el, pt.pool, budget, pt.ns2Interval)
		pt.policers = append(pt.policers, p)
		route = append(sim.Route{p}, route...)
		rcv.SetAckLevel(NS2AckLevel)
	}
	snd := tcp.NewSender(pt.el, pt.pool, &pt.tcfg, pt.cfg.Scheme.control(), f, route)
	rcv.SetRoute(pt.net.Route(f.Dst, f.Src, pt.net.ECMP(f.ID, true, salt), snd))
	snd.Start()
}

func (pt *point) flowDone(f *tcp.Flow) {
	if !pt.measured(f) {
		return
	}
	pt.done++
	pt.cfg.Progress.flowDone(pt.el.Now())
	if pt.done == pt.cfg.Flows {
		pt.el.Stop()
	}
}

// idealFCT is the flow's FCT alone on the idle fabric (topology.IdealFCTFrames: every packet
// full but the last). In closed form it costs a pass over the path's hops, no more than a cache
// of it would.
func (pt *point) idealFCT(f *tcp.Flow) sim.Time {
	path := pt.fab.Path(f.Src, f.Dst)
	return topology.IdealFCTFrames(path, tcp.WireSize(f.Size, 0), tcp.WireSize(f.Size, f.Packets-1), f.Packets)
}

func (pt *point) result() *FCTResult {
	res := &FCTResult{Scheme: pt.cfg.Scheme, Workload: pt.cfg.Workload.Name, Load: pt.cfg.Load, Seed: pt.cfg.Seed}
	for _, f := range pt.flows[:min(len(pt.flows), pt.cfg.Flows)] {
		// Times are kept to the nanosecond, as flows.csv writes them, so that statistics
		// recomputed from the file (sim report) are the ones the run computed.
		row := FlowRow{ID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, StartUs: results.Round3(f.Start.Micros()),
			IdealUs: results.Round3(pt.idealFCT(f).Micros()), Level: f.Level, Timeouts: f.Timeouts}
		if f.Done() {
			row.Done, row.FCTUs = true, results.Round3(f.FCT().Micros())
		} else {
			res.Unfinished++
		}
		res.Flows = append(res.Flows, row)
	}
	res.Unfinished += max(pt.cfg.Flows-len(pt.flows), 0)
	res.Background = max(len(pt.flows)-pt.cfg.Flows, 0)
	for _, p := range pt.net.Ports {
		if q, ok := p.(interface{ Stats() sim.QueueStats }); ok {
			res.Drops += q.Stats().Drops
		}
	}
	for _, p := range pt.policers {
		res.Drops += p.Dropped()
	}
	res.Stats = ComputeStats(res.Flows)
	res.RealisedLoad = RealisedLoad(res.Flows, pt.fab.Hosts(), pt.fab.EdgeRate)
	return res
}

// RealisedLoad is the load flows offered: their bytes on the wire (40-byte headers on 1460-byte
// payloads, as the arrivals are drawn) over the capacity of hosts edge links of rate from time 0
// to the last arrival. At data mining's 3,000 flows a point, whose sizes reach 1 GB, seed 1
// offers 0.956 at a nominal 0.8 (docs/reproducing.md, "What a point measures").
func RealisedLoad(flows []FlowRow, hosts int, rate sim.Rate) float64 {
	var bytes, last float64
	for _, f := range flows {
		bytes += float64(f.Size)
		last = max(last, f.StartUs)
	}
	if last == 0 {
		return 0
	}
	return workload.WireBytes(bytes) * 8 / (float64(hosts) * float64(rate) * last * 1e-6)
}
