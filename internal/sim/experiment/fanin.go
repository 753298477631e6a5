package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/qjump"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// FanInConfig is Fig. 11 at scale (§6.5): every host but one sends level-7 probes to that one
// host beside bulk traffic at level 0, for each f7; the worst probe latency is compared with the
// model's bound for level 7.
type FanInConfig struct {
	Hosts        int
	HostsPerRack int
	Factors      []float64 // f7 values
	Probes       int       // level-7 packets per point (at least)
	ProbeSize    int32     // bytes; the paper's coordination packets are 256 B
	Packet       model.Bytes
	Mesochronous int
	BulkLoad     float64 // bulk offered to the destination, a multiple of its link rate
	// Aligned starts every host's epochs at the same instant, so that all budgets arrive in one
	// burst: the worst case the bound is about. Otherwise each host's clock has a random offset
	// (mesochronous hosts), the case m compensates for.
	Aligned bool
	// Straddle times each host's probes across an epoch boundary: one budget at the very end of an
	// epoch, the next at the start of the following one, then nothing until the end of the epoch
	// after that. Budgets per epoch of the host's clock let a host send two budgets back to back
	// that way (model.Config.BurstBudgets), which probes sent only at the start of each epoch
	// never do; with Aligned, every host's two budgets meet at the destination at once.
	Straddle bool
	Seed     uint64
	Workers  int
}

// DefaultFanIn is the experiment at hosts hosts; quick shortens it for CI.
func DefaultFanIn(hosts int, quick bool) FanInConfig {
	c := FanInConfig{
		Hosts: hosts, HostsPerRack: fanInRack(hosts), Probes: 1_000_000, ProbeSize: 256, Packet: 1500,
		Mesochronous: model.DefaultMesochronous, BulkLoad: 1.2, Seed: 1, Workers: 2,
	}
	for f := 0.5; f <= 4.0001; f += 0.25 {
		c.Factors = append(c.Factors, math.Round(f*100)/100)
	}
	if quick {
		c.Probes = 100_000
		c.Factors = []float64{0.5, 1, 1.5, 2, 2.5, 3, 4}
	}
	return c
}

// fanInRack is the rack DefaultFanIn builds hosts of: 16 hosts when the count is a multiple of
// 16, else 12.
func fanInRack(hosts int) int {
	if hosts%16 == 0 {
		return 16
	}
	return 12
}

// CheckFanInHosts checks a host count for DefaultFanIn: whole racks (fanInRack), at least one.
func CheckFanInHosts(hosts int) error {
	if hosts >= 12 && hosts <= MaxHosts && hosts%fanInRack(hosts) == 0 {
		return nil
	}
	return &model.FieldError{Field: "hosts", Value: fmt.Sprint(hosts), Allowed: fmt.Sprintf(
		"need whole racks, a multiple of 16 (racks of 16 hosts) or of 12 (racks of 12), at most %d: e.g. 144, 60, 48, 24 or 12", MaxHosts)}
}

// Model is the QJump configuration of one point: n hosts at 10 Gb/s, P, m, f7 and an unlimited
// level 0. ε is what a level-7 packet can wait behind lower-level packets already being sent:
// one full frame at each of the four hops of the longest path (switches do not preempt).
func (c FanInConfig) Model(f7 float64, fab topology.Config) model.Config {
	eps := sim.Time(0)
	for _, h := range fab.Path(0, fab.Hosts()-1) {
		eps += h.Rate.Serialization(1500)
	}
	return model.Config{
		Hosts: c.Hosts, Rate: model.Rate(fab.EdgeRate), Packet: c.Packet, Mesochronous: c.Mesochronous,
		Epsilon: time.Duration(eps / sim.Nanosecond),
		Factors: model.Factors{7: model.Limited(f7), 0: model.Unlimited()},
	}
}

// Region is the paper's reading of Fig. 11: A (f7 ≤ 1) the bound holds; B (1 < f7 ≤ m) the model
// still promises the bound, the paper saw transient queueing; C (f7 > m) the level is
// oversubscribed and queues grow without bound.
func Region(f7 float64, m int) string {
	switch {
	case f7 <= 1:
		return "A"
	case f7 <= float64(m):
		return "B"
	}
	return "C"
}

// FanInPoint is one f7.
type FanInPoint struct {
	F7         float64  `json:"f7"`
	Region     string   `json:"region"`
	Guaranteed bool     `json:"guaranteed"`
	BoundUs    *float64 `json:"bound_us"`   // model FanIn(7).Delay; nil (null) when not guaranteed
	FormulaUs  float64  `json:"formula_us"` // the same formula, also where it is not guaranteed
	Probes     int      `json:"probes"`     // delivered
	// Queueing latency of the delivered probes (latency minus the idle path's); nil (null) when
	// none was delivered: the level's budget holds no probe.
	P50Us     *float64 `json:"p50_us"`
	P99Us     *float64 `json:"p99_us"`
	MaxUs     *float64 `json:"max_us"`
	OverBound *int     `json:"over_bound"` // delivered probes over the bound; nil (null) without one
	Lost      int      `json:"lost"`       // probes dropped by a full switch buffer (region C)
	Held      uint64   `json:"limiter_holds"`
	Perf      Perf     `json:"perf"`
	// Latency is the statistics of the probes' queueing latency (µs), lost probes counted.
	Latency results.Stats `json:"-"`
}

// FanInResult is the sweep: every f7 that finished, all of Factors unless interrupted.
type FanInResult struct {
	Hosts    int          `json:"hosts"`
	Aligned  bool         `json:"aligned_epochs"`
	Straddle bool         `json:"straddled"`
	Points   []FanInPoint `json:"points"`
}

// RunFanIn runs every f7 on Workers goroutines (see parallel).
func RunFanIn(c FanInConfig, progress func(FanInPoint)) (*FanInResult, error) {
	return RunFanInContext(context.Background(), c, progress)
}

// RunFanInContext is RunFanIn until ctx is done: then it returns the points that finished.
func RunFanInContext(ctx context.Context, c FanInConfig, progress func(FanInPoint)) (*FanInResult, error) {
	if c.Hosts < 2 || c.Hosts%c.HostsPerRack != 0 {
		return nil, &model.FieldError{Field: "hosts", Value: fmt.Sprint(c.Hosts), Allowed: fmt.Sprintf("need at least 2 hosts in whole racks of %d", c.HostsPerRack)}
	}
	points := make([]FanInPoint, len(c.Factors))
	finished := parallel(ctx, len(c.Factors), c.Workers, func(i int) {
		points[i] = runFanInPoint(c, c.Factors[i])
	}, func(i int) {
		if progress != nil {
			progress(points[i])
		}
	})
	res := &FanInResult{Hosts: c.Hosts, Aligned: c.Aligned, Straddle: c.Straddle, Points: []FanInPoint{}}
	for i, ok := range finished {
		if ok {
			res.Points = append(res.Points, points[i])
		}
	}
	return res, nil
}

// fanIn is one point being simulated.
type fanIn struct {
	el      *sim.EventList
	pool    *sim.PacketPool
	net     *topology.Fabric
	ports   []*qjump.HostPort
	lims    []*qjump.Limiter
	offsets []int64
	idle    []sim.Time // idle latency of a probe from each host
	routes  []sim.Route
	bulk    []sim.Route
	size    int32
	perHost int // probes per epoch
	// lead is how long before an epoch's end a straddling prober sends: its budget and one bulk
	// frame ahead of it at the host's link, with a margin, so every probe starts in that epoch.
	lead    sim.Time
	epoch   sim.Time
	latency []float64
	want    int
}

func runFanInPoint(c FanInConfig, f7 float64) FanInPoint {
	start := time.Now()
	fab := topology.PaperFabric()
	// Switch buffers hold the TCP baseline's 225 kB, counted in probes: real switches buffer
	// bytes, and 150 slots of 256-byte probes would overflow below the bound.
	buffer := TCPBuffer * 1500 / int(c.ProbeSize)
	fab.Racks, fab.HostsPerRack, fab.Buffer, fab.HostBuffer = c.Hosts/c.HostsPerRack, c.HostsPerRack, buffer, buffer
	mc := c.Model(f7, fab)
	fi := mc.FanIn(7)
	pt := FanInPoint{F7: f7, Region: Region(f7, c.Mesochronous), Guaranteed: fi.Guaranteed}
	pt.FormulaUs = float64(fi.Delay.Nanoseconds()) / 1000
	if fi.Guaranteed {
		bound := pt.FormulaUs
		pt.BoundUs = &bound
	}
	x := &fanIn{el: sim.NewEventList(), pool: &sim.PacketPool{}, size: c.ProbeSize, want: c.Probes}
	phases := rand.New(rand.NewPCG(c.Seed, uint64(math.Round(f7*1000))))
	x.net = topology.Build(x.el, fab, func(rate sim.Rate, limit int, host int) sim.Port {
		if host < 0 {
			return sim.NewPrioQueue(x.el, x.pool, rate, limit, false)
		}
		lim := qjump.NewLimiter(mc)
		off := phases.Int64N(lim.EpochNs())
		if c.Aligned {
			off = 0
		}
		hp := qjump.NewHostPort(x.el, x.pool, rate, limit, lim, off)
		x.ports, x.lims, x.offsets = append(x.ports, hp), append(x.lims, lim), append(x.offsets, off)
		return hp
	})
	budget, _ := mc.Budget(mc.Factors[7])
	x.perHost = int(int64(budget) / int64(c.ProbeSize))
	if x.perHost == 0 {
		return pt
	}
	x.epoch = sim.Time(x.lims[0].EpochNs()) * sim.Nanosecond
	x.lead = fab.EdgeRate.Serialization(int(int64(x.perHost)*int64(c.ProbeSize))+1500) + 100*sim.Nanosecond
	probeSink := sim.Sink(sinkFunc(x.probeArrived))
	bulkSink := sim.Sink(sinkFunc(func(p *sim.Packet) { x.pool.Put(p) }))
	for h := 0; h < c.Hosts; h++ {
		x.routes = append(x.routes, x.net.Route(h, 0, h%fab.Spines, probeSink))
		x.bulk = append(x.bulk, x.net.Route(h, 0, (h+1)%fab.Spines, bulkSink))
		x.idle = append(x.idle, topology.IdealFCT(fab.Path(h, 0), func(int32) int32 { return c.ProbeSize }, 1))
	}
	for h := 1; h < c.Hosts; h++ {
		pr := &prober{x: x, host: h, straddle: c.Straddle}
		x.el.Schedule(pr.first(), pr)
		gap := sim.Time(float64(fab.EdgeRate.Serialization(1500)) * float64(c.Hosts-1) / c.BulkLoad)
		x.el.Schedule(sim.Time(phases.Int64N(int64(gap))), &bulker{x: x, host: h, gap: gap})
	}
	x.el.Run(sim.Never)
	pt.Probes = len(x.latency)
	sort.Float64s(x.latency)
	if n := len(x.latency); n > 0 {
		// Copies, not pointers into x.latency: a point keeps three numbers, not its million probes.
		p50, p99, worst := nearestRank(x.latency, 0.5), nearestRank(x.latency, 0.99), x.latency[n-1]
		pt.P50Us, pt.P99Us, pt.MaxUs = &p50, &p99, &worst
	}
	if fi.Guaranteed {
		over := 0
		for _, l := range x.latency {
			if l > pt.FormulaUs {
				over++
			}
		}
		pt.OverBound = &over
	}
	for _, p := range x.ports {
		pt.Held += p.Held()
	}
	for _, p := range x.net.Ports {
		if q, ok := p.(*sim.PrioQueue); ok {
			pt.Lost += q.LevelDrops(7)
		}
	}
	pt.Latency = sortedStats(x.latency, pt.Lost)
	pt.Perf = Perf{WallSeconds: time.Since(start).Seconds(), SimulatedSeconds: x.el.Now().Seconds(),
		Events: x.el.Events(), PacketHops: x.el.Hops, Packets: x.pool.Allocated(),
		BucketPs: int64(x.el.BucketWidth())}
	return pt
}

// nextEpoch is the simulated time at which host h's next epoch begins.
func (x *fanIn) nextEpoch(h int) sim.Time {
	nowNs := int64(x.el.Now()/sim.Nanosecond) + x.offsets[h]
	return sim.Time(x.lims[h].NextEpochNs(nowNs)-x.offsets[h]) * sim.Nanosecond
}

func (x *fanIn) probeArrived(p *sim.Packet) {
	lat := x.el.Now() - p.Born - x.idle[p.Flow]
	x.latency = append(x.latency, lat.Micros())
	x.pool.Put(p)
	if len(x.latency) >= x.want {
		x.el.Stop()
	}
}

// prober is a host's coordination service. It sends its whole level-7 budget as probes at the
// start of each of its epochs, or, straddling, at the end of one epoch and the start of the next
// (two budgets back to back, the worst burst the limiter allows), every second epoch.
type prober struct {
	x        *fanIn
	host     int
	straddle bool
	late     bool // straddling: the event pending is the one at an epoch's end
}

// first is when the prober first sends.
func (p *prober) first() sim.Time {
	next := p.x.nextEpoch(p.host)
	if !p.straddle {
		return next
	}
	p.late = true
	if next-p.x.lead < p.x.el.Now() {
		next += p.x.epoch
	}
	return next - p.x.lead
}

func (p *prober) DoNextEvent() {
	x := p.x
	for i := 0; i < x.perHost; i++ {
		pk := x.pool.Get()
		pk.Size, pk.Level, pk.Born, pk.Flow = x.size, 7, x.el.Now(), int32(p.host)
		pk.SetRoute(x.routes[p.host])
		pk.SendOn()
	}
	next := x.nextEpoch(p.host)
	switch {
	case !p.straddle:
	case p.late: // the next budget at the start of the epoch that follows
		p.late = false
	default: // now the start of an epoch: next, the end of the one after it
		p.late = true
		next += x.epoch - x.lead
	}
	x.el.Schedule(next, p)
}

// bulker sends full frames at level 0 at a fixed pace: together the hosts offer BulkLoad times
// the destination's link, so its level-0 queue is always full and a level-7 packet can always
// find a frame being sent ahead of it.
type bulker struct {
	x    *fanIn
	host int
	gap  sim.Time
}

func (b *bulker) DoNextEvent() {
	x := b.x
	pk := x.pool.Get()
	pk.Size, pk.Level = 1500, 0
	pk.SetRoute(x.bulk[b.host])
	pk.SendOn()
	x.el.Schedule(x.el.Now()+b.gap, b)
}

type sinkFunc func(p *sim.Packet)

func (f sinkFunc) Receive(p *sim.Packet) { f(p) }
