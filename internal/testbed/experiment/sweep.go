package experiment

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/vishvananda/netlink"
)

// memcached-sweep is the paper's Fig. 10 and §6.5: memcached on h2 at level 5 with level 5's
// factor swept from one packet per epoch to line rate, a closed-loop client on h1 (one request
// outstanding, as fast as the replies come, 90 % GET of 1 kB values), without and with bulk iperf3
// into both of their switch ports. Per factor it measures throughput (requests per second) and
// request latency. The factor caps throughput at T5 = f5·P·8/E divided by the bytes a request
// costs the server's level; until it binds, latency is flat. `qjump advise` picks the smallest
// factor that meets a target from this sweep.
func init() {
	register(experiment{name: "memcached-sweep", title: "memcached throughput and latency against level 5's factor (Fig. 10)",
		hosts: 4, minHosts: 4, run: runSweep, targets: sweepTargets, plots: sweepPlots, plotted: sweepPlotted, fromSeries: true})
}

// kvRequestWire is what one request of the client's mix costs the server's level, in the bytes
// the dataplane charges (model.WireBytes: the frame plus 24 B of FCS, preamble and gap), an
// estimate: a GET's reply carries the 1024-byte value with memcached's "VALUE k 0 1024" and "END"
// lines (1056 B) under 66 B of TCP/IP/Ethernet headers, 1146 B charged; a SET's reply is "STORED"
// (98 B charged); 90 % GETs. The server's ACKs ride on its replies.
var kvRequestWire = 0.9*float64(model.WireBytes(1056+66)) + 0.1*float64(model.WireBytes(8+66))

func sweepFactors(quick bool, line float64) []float64 {
	if quick {
		return []float64{1, 2, 4, line}
	}
	return []float64{1, 1.5, 2, 3, 4, 6, line}
}

func sweepArm(f5 float64, bulk bool) string {
	a := "f5=" + strconv.FormatFloat(f5, 'g', 3, 64)
	if bulk {
		a += " bulk"
	}
	return a
}

func sweepFactorsOf(env *Env) []float64 {
	line := results.Round3(env.modelConfig(nil).LineRateFactor())
	if len(env.opts.Sweep) > 0 {
		return env.opts.Sweep
	}
	return sweepFactors(env.opts.Quick, line)
}

func runSweep(ctx context.Context, env *Env) error {
	per, warm := 5*time.Second, 2*time.Second
	if env.opts.Quick {
		per, warm = 1500*time.Millisecond, time.Second
	}
	bulk := memcachedBulk(env.tb.Config.Hosts)
	if err := env.probeRR(ctx, probeSpec{arm: "idle-probe", from: 1, to: 2, count: 200, interval: 2 * time.Millisecond, size: 64}); err != nil {
		return err
	}
	env.measureEpsilon("idle-probe")
	env.logf("[idle] no QJump, no bulk: memcached's own throughput and latency")
	if err := runSweepArm(ctx, env, results.Arm{Name: "idle", Description: "no QJump, idle network", Bulk: "none"}, nil, per, warm); err != nil {
		return err
	}
	factors := sweepFactorsOf(env)
	for i, f5 := range factors {
		cfg := env.modelConfig(model.Factors{kvLevel: model.Limited(f5), 0: model.Unlimited()})
		if err := env.qjumpDown(ctx); err != nil {
			return err
		}
		if err := env.qjumpUp(ctx, cfg.Factors); err != nil {
			return err
		}
		env.logf("[%d/%d] f5=%g: T5 = %s", i+1, len(factors), f5, cfg.LevelRate(model.Limited(f5)))
		for _, b := range []bool{false, true} {
			arm := results.Arm{Name: sweepArm(f5, b), QJump: true, Param: f5, HasParam: true, Bulk: "none",
				Description: fmt.Sprintf("memcached at level 5 with f5 = %g, bulk at level 0", f5)}
			var flows [][2]int
			if b {
				arm.Bulk, flows = bulkText(bulk), bulk
			}
			if err := runSweepArm(ctx, env, arm, flows, per, warm); err != nil {
				return err
			}
		}
	}
	return env.qjumpDown(ctx)
}

func runSweepArm(ctx context.Context, env *Env, arm results.Arm, bulk [][2]int, per, warm time.Duration) error {
	defer env.procs.stopAll()
	kv, err := env.startMemcached(ctx, 2, 1)
	if err != nil {
		return err
	}
	for _, f := range bulk {
		if err := env.bulk(ctx, f[0], f[1], warm+per+20*time.Second); err != nil {
			return err
		}
	}
	if len(bulk) > 0 {
		if err := sleep(ctx, warm); err != nil {
			return err
		}
	}
	// Closed loop at full speed: --interval 0, as many requests as the replies allow in `per`.
	rows, err := kv.load(ctx, env, arm.Name, "--count", "10000000", "--interval", "0s", "--for", per.String())
	if err != nil {
		return err
	}
	for i := range rows {
		rows[i].Param = arm.Param
	}
	env.record(rows)
	env.res.Arms = append(env.res.Arms, arm)
	s := env.stats(arm.Name, toolMemcached, metricRequest)
	env.logf("       %-12s %6.0f requests/s, p50 %.0fµs p99 %.0fµs", arm.Name, s.PerSec, s.P50US, s.P99US)
	return nil
}

// kvPair is a memcached server at level 5 and the host its client runs on.
type kvPair struct {
	server, client, port int
}

// startMemcached starts memcached on host server at memcached's level and populates its key
// space from host client before any bulk traffic starts (set-up, not measurement).
func (env *Env) startMemcached(ctx context.Context, server, client int) (kvPair, error) {
	kv := kvPair{server: server, client: client, port: env.nextPort()}
	mc, err := env.procs.start("memcached", env.tb.Exec(server, env.atLevel(kvLevel, false, "memcached", "-u", "nobody",
		"-l", env.addr(server), "-p", strconv.Itoa(kv.port), "-U", "0", "-t", "1", "-m", "64")...))
	if err != nil {
		return kv, err
	}
	if err := env.awaitTCP(ctx, mc, tcpState{host: server, state: netlink.TCP_LISTEN, port: kv.port, n: 1}); err != nil {
		return kv, err
	}
	if _, err := runOut(ctx, kv.clientArgv(env, "--count", "0", "--out", os.DevNull)); err != nil {
		return kv, fmt.Errorf("populate memcached: %w", err)
	}
	return kv, nil
}

// client_ is our memcached client on the client host at memcached's level, 1 kB values over
// 1000 keys, with extra arguments.
func (kv kvPair) clientArgv(env *Env, extra ...string) []string {
	return env.tb.Exec(kv.client, env.atLevel(kvLevel, true, append([]string{testbed.Binary, "probe", "memcached",
		"--server", env.hostPort(kv.server, kv.port), "--value", "1024", "--keys", "1000"}, extra...)...)...)
}

// load runs the client (90 % GET, seed 1, with extra arguments: count, interval, time limit) and
// returns its requests as rows of arm.
func (kv kvPair) load(ctx context.Context, env *Env, arm string, extra ...string) ([]results.Row, error) {
	raw := filepath.Join(env.opts.OutDir, "raw", strings.ReplaceAll(arm, " ", "-")+"-memcached.csv")
	args := append([]string{"--populate=false", "--get-ratio", "0.9", "--seed", "1", "--out", raw}, extra...)
	if _, err := runOut(ctx, kv.clientArgv(env, args...)); err != nil {
		return nil, fmt.Errorf("memcached load: %w", err)
	}
	rows, err := readKVCSV(raw, arm)
	for i := range rows {
		rows[i].Sender = kv.client
	}
	return rows, err
}

// sweepPoint is one factor's figures, without or with bulk.
type sweepPoint struct {
	f5   float64
	bulk bool
	results.Series
}

func sweepPoints(r *Results, bulk bool) []sweepPoint {
	var pts []sweepPoint
	for _, s := range r.Series {
		if s.Tool == toolMemcached && s.Metric == metricRequest && s.Param > 0 && s.Arm == sweepArm(s.Param, bulk) && !s.Empty() {
			pts = append(pts, sweepPoint{f5: s.Param, bulk: bulk, Series: s})
		}
	}
	slices.SortFunc(pts, func(a, b sweepPoint) int {
		switch {
		case a.f5 < b.f5:
			return -1
		case a.f5 > b.f5:
			return 1
		}
		return 0
	})
	return pts
}

// sweepCap is the model's throughput cap at f5: T5 over the bytes a request costs level 5.
func sweepCap(m ModelInfo, f5 float64) float64 {
	t := m.config(model.Factors{kvLevel: model.Limited(f5)}).LevelRate(model.Limited(f5))
	return float64(t) / 8 / kvRequestWire
}

// sweepBound is the model's latency bound of level 5 at f5 (bulk unlimited below it): D5 =
// n·P·8·f5/R + ε, guaranteed while f5 ≤ m.
func sweepBound(m ModelInfo, f5 float64) model.FanIn {
	return m.config(model.Factors{kvLevel: model.Limited(f5), 0: model.Unlimited()}).FanIn(kvLevel)
}

// sweepPlotted is Fig. 10's top panel as a table: requests per second at each factor without and
// with bulk, and the model's cap, below memcached's own rate without QJump (the idle arm). The
// paper's figure is a throughput, which compares with none of the latency series.
func sweepPlotted(r *Results) []results.PlotTable {
	t := results.PlotTable{Title: "Fig. 10 (top): memcached requests / s against level 5's factor", Files: []string{"fig10-memcached-sweep.png"},
		Key: "f5", Paper: "10 G, throughput grows with the factor until memcached peaks at about 5 Gb/s",
		Columns: []results.PlotColumn{{Name: "no bulk", Unit: "requests/s"}, {Name: "with bulk", Unit: "requests/s"}, {Name: "model cap", Unit: "requests/s"}}}
	rate := func(arm string) *float64 {
		if s, ok := r.series(arm, toolMemcached, metricRequest); ok && s.PerSec > 0 {
			return results.Value(s.PerSec)
		}
		return nil
	}
	if v := rate("idle"); v != nil {
		t.Rows = append(t.Rows, results.PlotRow{Key: "idle, no QJump", Values: []*float64{v, nil, nil}})
	}
	for _, f5 := range paramsRun(r, func(a results.Arm) bool { return a.HasParam }) {
		t.Rows = append(t.Rows, results.PlotRow{Key: strconv.FormatFloat(f5, 'g', 3, 64), Values: []*float64{
			rate(sweepArm(f5, false)), rate(sweepArm(f5, true)), results.Value(results.Round3(sweepCap(r.Model, f5)))}})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return []results.PlotTable{t}
}

// sweepTargets check the paper's shape: where the model's cap binds, throughput is capped by the
// factor (within 25 % of the cap, never far above it), judged apart without and with bulk (capped
// and cappedWithBulk say why); the p99 latency at the largest factor is within 1.5 × the idle
// arm's (flat once the factor no longer binds).
func sweepTargets(r *Results) []results.Target {
	t2 := results.Target{Name: "latency-flat", Unit: "µs", LimitFromRun: true,
		Criterion: "with the factor at line rate, p99 latency without bulk ≤ 1.5 × the idle arm's p99 (no QJump)"}
	idle, okI := r.series("idle", toolMemcached, metricRequest)
	if pts := sweepPoints(r, false); okI && len(pts) > 0 {
		top := pts[len(pts)-1]
		t2.Value, t2.Limit, t2.Evaluated = top.P99US, results.Round3(1.5*idle.P99US), true
		t2.Met = t2.Value <= t2.Limit
	} else {
		t2.Note = "no sweep points"
	}
	return []results.Target{capped(r), cappedWithBulk(r), t2}
}

// capRange is how far from the model's cap throughput may be where the cap binds.
var capRange = [2]float64{0.75, 1.25}

// capped judges the runs without bulk where the cap binds: below memcached's own rate on an idle
// network without QJump (the idle arm).
func capped(r *Results) results.Target {
	t := results.Target{Name: "throughput-capped", Unit: "×", LimitFromRun: true, Ranged: true, Range: capRange,
		Criterion: fmt.Sprintf("runs without bulk (those with bulk: throughput-capped-with-bulk): where the model's cap T5/(8·B per request) "+
			"is below memcached's own rate (the idle arm, no QJump), measured throughput / cap is within %g..%g (the point furthest from 1 shown)", capRange[0], capRange[1])}
	idle, ok := r.series("idle", toolMemcached, metricRequest)
	if !ok {
		t.Note = "no idle arm"
		return t
	}
	judgeCap(r, &t, sweepPoints(r, false), idle.PerSec, "memcached's idle rate")
	return t
}

// cappedWithBulk judges the runs with bulk where the cap binds: below memcached's rate beside bulk
// at the largest factor swept, where the factor binds nothing; and that rate itself, against the
// smallest factor's cap, where it is under it. Beside bulk, memcached's own rate
// is lower than on an idle network: the hosts' two cores also forward the bulk traffic, which no
// factor gives back (docs/reproducing.md, Fig. 10: 4,750 requests/s from f5 = 4 to line rate, of
// 12,000 without bulk). Judged against the cap wherever the cap is below the idle rate, those
// points would miss for the machine, not for QJump; judged here, a factor that binds with bulk
// must still deliver its cap, which is what QJump promises memcached beside bulk.
func cappedWithBulk(r *Results) results.Target {
	pts := sweepPoints(r, true)
	criterion := func(top string) string {
		return fmt.Sprintf("runs with bulk: where the model's cap is below memcached's rate beside bulk at the largest factor%s, which binds nothing "+
			"(what the machine's shared cores leave memcached), measured throughput / cap is within %g..%g (the point furthest from 1 shown)",
			top, capRange[0], capRange[1])
	}
	t := results.Target{Name: "throughput-capped-with-bulk", Unit: "×", LimitFromRun: true, Ranged: true, Range: capRange, Criterion: criterion("")}
	if len(pts) < 2 {
		t.Note = "fewer than two factors run with bulk"
		return t
	}
	top := pts[len(pts)-1]
	t.Criterion = criterion(", " + top.Arm)
	if least := sweepCap(r.Model, pts[0].f5); top.PerSec < least {
		// The yardstick is starved itself: beside bulk, memcached at the largest factor moves less
		// than the smallest factor's cap promises, so every factor would pass unjudged, as if
		// QJump kept nothing from bulk (review, helper-92). Judged there instead.
		t.JudgeIn(results.Round3(top.PerSec/least), t.Range[0], t.Range[1])
		t.Note = fmt.Sprintf("beside bulk, memcached at %s moves %.0f requests/s, under the cap of the smallest factor, %s (%.0f/s)",
			top.Arm, top.PerSec, pts[0].Arm, least)
		return t
	}
	judgeCap(r, &t, pts[:len(pts)-1], top.PerSec, fmt.Sprintf("memcached's rate beside bulk at %s (%.0f/s)", top.Arm, top.PerSec))
	return t
}

// judgeCap judges t on the points of pts whose cap is below own, memcached's rate where no cap
// binds (named ownText), on the point furthest from its cap.
func judgeCap(r *Results, t *results.Target, pts []sweepPoint, own float64, ownText string) {
	worst, found := sweepPoint{}, false
	for _, p := range pts {
		if sweepCap(r.Model, p.f5) >= own {
			continue
		}
		if !found || offCap(r, p) > offCap(r, worst) {
			worst, found = p, true
		}
	}
	if !found {
		t.Note = "no factor's cap is below " + ownText
		return
	}
	cap := sweepCap(r.Model, worst.f5)
	t.JudgeIn(results.Round3(worst.PerSec/cap), t.Range[0], t.Range[1])
	t.Note = fmt.Sprintf("furthest: %s, %.0f requests/s against a cap of %.0f", worst.Arm, worst.PerSec, cap)
}

// offCap is how far p's throughput is from its cap, as a fraction of the cap.
func offCap(r *Results, p sweepPoint) float64 { return math.Abs(p.PerSec/sweepCap(r.Model, p.f5) - 1) }

// sweepPlots are Fig. 10: throughput against f5 with the model's cap, and p50/p99 latency against
// f5, without and with bulk.
func sweepPlots(r *Results, _ []results.Row, dir string) ([]string, error) {
	quiet, loaded := sweepPoints(r, false), sweepPoints(r, true)
	line := func(label string, pts []sweepPoint, get func(sweepPoint) float64) results.Line {
		l := results.Line{Label: label}
		for _, p := range pts {
			l.Points = append(l.Points, results.XY{X: p.f5, Y: get(p)})
		}
		return l
	}
	rate := func(p sweepPoint) float64 { return p.PerSec }
	model := line("model cap T5 / request bytes", quiet, func(p sweepPoint) float64 { return sweepCap(r.Model, p.f5) })
	model.Model = true
	thr := results.LinePlot{Title: "Fig. 10 (top): memcached throughput against level 5's factor", XLabel: "f5",
		YLabel: "requests / s", Lines: []results.Line{line("no bulk", quiet, rate), line("with bulk", loaded, rate), model}}
	lat := results.LinePlot{Title: "Fig. 10 (bottom): memcached request latency against f5", XLabel: "f5",
		YLabel: "latency (µs)", LogY: true, Lines: []results.Line{
			line("p50, no bulk", quiet, func(p sweepPoint) float64 { return p.P50US }),
			line("p99, no bulk", quiet, func(p sweepPoint) float64 { return p.P99US }),
			line("p50, with bulk", loaded, func(p sweepPoint) float64 { return p.P50US }),
			line("p99, with bulk", loaded, func(p sweepPoint) float64 { return p.P99US })}}
	return drawAll(results.Stack{File: "fig10-memcached-sweep.png", Panels: []results.LinePlot{thr, lat}}.Draw(dir))
}
