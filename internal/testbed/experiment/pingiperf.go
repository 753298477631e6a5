package experiment

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
)

// ping-iperf is the paper's Table 1 and Fig. 3a: a probe (ping, and our timestamped UDP probe)
// from h1 to h2 while iperf3 bulk flows share, in turn, the switch, the source host, the
// destination host, both hosts, and finally the switch queue in front of h2, then that last case
// again with QJump on: probes at level 7, bulk at level 0.
func init() {
	register(experiment{name: "ping-iperf", title: "ping vs iperf (Table 1, Fig. 3a)", hosts: 4, minHosts: 3, rate: pingIperfRate,
		run: runPingIperf, targets: pingIperfTargets, plots: pingIperfPlots, paper: pingIperfPaper,
		derive: lessStalls(metricOneWay)})
}

// pingIperfRate is ping-iperf's default R, 10 Mb/s for the reason fan-in's is (fanInRate): its
// targets compare QJump's tail with idle's plus one frame time, and at 100 Mb/s the emulation's
// own delays under 100 Mb/s of bulk (20-40 µs at p99, in CPU and timers) are as large as the
// slack, so `qjump-near-idle` held in 6 of 10 quick runs and `contended-vs-qjump` in 5; at 10 Mb/s
// the frame time, every queue and the slack grow tenfold and the emulation's delays do not
// (docs/testbed.md, "Ten runs of each latency target").
const pingIperfRate = model.Rate(10e6)

// pingIperfArm is one row of Table 1: the bulk flows (from, to) that share part of the path.
type pingIperfArm struct {
	name, description string
	bulk              [][2]int
	qjump             bool
	paper             string // the paper's Table 1 row (median and p99 RTT, ping, 10G), as the paper column shows it
}

func pingIperfArms(hosts int) []pingIperfArm {
	arms := []pingIperfArm{
		{name: "idle", description: "one probe, idle network", paper: "p50 85, p99 126µs"},
		{name: "shared-switch", description: "bulk h3→h4 through the same switch, other ports", bulk: [][2]int{{3, 4}}, paper: "p50 110, p99 130µs"},
		{name: "shared-src", description: "bulk h1→h3 shares the source host's egress", bulk: [][2]int{{1, 3}}, paper: "p50 228, p99 268µs"},
		{name: "shared-dst", description: "bulk h2→h3 shares the destination host's egress (the replies)", bulk: [][2]int{{2, 3}}, paper: "p50 125, p99 278µs"},
		{name: "shared-both", description: "bulk h1→h3 and h3→h1 share the source host's egress and its ingress port", bulk: [][2]int{{1, 3}, {3, 1}}, paper: "p50 221, p99 229µs"},
		{name: "switch-queue", description: "bulk h3→h2 shares the switch queue in front of h2", bulk: [][2]int{{3, 2}}, paper: "p50 1,920, p99 2,100µs"},
		{name: "qjump", description: "as switch-queue, QJump on: probe at level 7, bulk at level 0", bulk: [][2]int{{3, 2}}, qjump: true, paper: "Fig. 3a: 2-4µs at the switch"},
	}
	if hosts < 4 {
		arms[1].description += " (needs 4 hosts)"
	}
	return arms
}

// pingIperfPaper is the paper's figure for a series, shown once per arm beside the series that
// measures the same thing: Table 1 was ping round trips, Fig. 3a latency across the switch.
func pingIperfPaper(_ *Results, s results.Series) string {
	if s.Tool != toolPing && !(s.Arm == "qjump" && s.Metric == metricNetwork) {
		return ""
	}
	for _, a := range pingIperfArms(4) {
		if a.name == s.Arm {
			return a.paper
		}
	}
	return ""
}

func runPingIperf(ctx context.Context, env *Env) error {
	count, interval, warm := 3000, time.Millisecond, 2*time.Second
	if env.opts.Quick {
		count, interval, warm = 400, 2500*time.Microsecond, time.Second
	}
	interval = max(interval, levelSevenPacing(env))
	probeTime := time.Duration(count) * interval
	arms := pingIperfArms(env.tb.Config.Hosts)
	for i, a := range arms {
		arm := results.Arm{Name: a.name, Description: a.description, QJump: a.qjump, Bulk: bulkText(a.bulk)}
		if needsHosts(a.bulk) > env.tb.Config.Hosts {
			env.skipArm(arm, fmt.Sprintf("needs %d hosts", needsHosts(a.bulk)))
			continue
		}
		if a.qjump {
			if err := env.qjumpUp(ctx, model.Factors{7: model.Limited(1), 0: model.Unlimited()}); err != nil {
				return err
			}
		}
		env.logf("[%d/%d] %s: %s", i+1, len(arms), a.name, a.description)
		if err := runPingIperfArm(ctx, env, a, count, interval, warm, bulkLimit(probeTime, warm)); err != nil {
			return err
		}
		env.res.Arms = append(env.res.Arms, arm)
		ow := env.stats(a.name, toolProbe, metricOneWay)
		env.logf("       probe one-way p50 %.0fµs p99 %.0fµs; ping p99 %.0fµs",
			ow.P50US, ow.P99US, env.stats(a.name, toolPing, metricRTT).P99US)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if a.name == "idle" {
			env.measureEpsilon("idle")
		}
	}
	return env.qjumpDown(ctx)
}

// levelSevenPacing is the shortest interval at which the probe and ping, side by side at level 7
// in the QJump arm, use at most two thirds of the level's rate at f7 = 1 (T7 = P·8/E: 1.25 Mb/s at
// 10 Mb/s, 12.5 at 100). Faster, QJump's shaper on h1 holds them back, which is the rate limit
// working, not the network (a full run at 10 Mb/s with 1 ms between sends, 2 Mb/s of level-7
// traffic, measured a one-way p50 of 1,326 µs where the network's was 663 µs). The third left
// over absorbs the senders' jitter.
func levelSevenPacing(env *Env) time.Duration {
	perSend := model.WireBytes(probeFrame(pingIperfProbeSize)) + model.WireBytes(pingFrame)
	t7 := env.modelConfig(model.Factors{7: model.Limited(1)}).LevelRate(model.Limited(1))
	return time.Duration(1.5 * float64(perSend) * 8 / float64(t7) * 1e9)
}

// pingIperfProbeSize is the probe's UDP payload, bytes.
const pingIperfProbeSize = 64

// pingFrame is the frame of ping's default echo request: 56 bytes of data, ICMP, IPv4, Ethernet.
const pingFrame = model.Bytes(56 + 8 + 20 + 14)

// probeFrame is the frame of a UDP probe with payload bytes of data.
func probeFrame(payload int) model.Bytes { return model.Bytes(payload + 8 + 20 + 14) }

func runPingIperfArm(ctx context.Context, env *Env, a pingIperfArm, count int, interval, warm, bulkFor time.Duration) error {
	defer env.procs.stopAll()
	for _, f := range a.bulk {
		if err := env.bulk(ctx, f[0], f[1], bulkFor); err != nil {
			return err
		}
	}
	if len(a.bulk) > 0 {
		if err := sleep(ctx, warm); err != nil {
			return err
		}
	}
	// The probe and ping run side by side, so both see the same bulk traffic for the same time.
	spec := probeSpec{arm: a.name, from: 1, to: 2, count: count, interval: interval, size: pingIperfProbeSize}
	pingDone := make(chan error, 1)
	go func() { pingDone <- env.ping(ctx, spec) }()
	probeErr := env.probeRR(ctx, spec)
	return errors.Join(probeErr, <-pingDone)
}

// bulkLimit bounds a bulk flow's life: an arm stops its flows when its probes finish, and a probe
// slowed by queueing can take several times its nominal time, but nothing runs unbounded.
func bulkLimit(probeTime, warm time.Duration) time.Duration {
	return warm + 20*probeTime + 10*time.Second
}

func needsHosts(bulk [][2]int) int {
	n := 2
	for _, f := range bulk {
		n = max(n, f[0], f[1])
	}
	return n
}

func bulkText(bulk [][2]int) string {
	if len(bulk) == 0 {
		return "none"
	}
	s := ""
	for i, f := range bulk {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("h%d→h%d", f[0], f[1])
	}
	return s
}

// pingIperfTargets are the criteria for the shared switch queue, on the probe's one-way
// latency (the closest to the paper's in-network measurement with taps around the switch).
func pingIperfTargets(r *Results) []results.Target {
	frameUS := float64(r.Model.FrameTimeNS) / 1e3
	// Both judge the one-way latency less the machine's measured stalls (docs/testbed.md,
	// "Machine stalls"), every arm alike, or the raw latency of a run that measured none: the
	// criteria say which.
	m := judged(r, metricOneWay)
	less := lessStallsWords(m)
	idle, okI := r.series("idle", toolProbe, m)
	cont, okC := r.series("switch-queue", toolProbe, m)
	qj, okQ := r.series("qjump", toolProbe, m)
	t1 := results.Target{Name: "qjump-near-idle", Unit: "µs", LimitFromRun: true,
		Criterion: "QJump p99 ≤ 1.5 × idle p99 + one maximum frame time at R (probe, one-way" + less + ")"}
	t2 := results.Target{Name: "contended-vs-qjump", Unit: "×",
		Criterion: "contended p99 ≥ 50 × QJump p99 (probe, one-way" + less + ", shared switch queue)", Limit: 50}
	if okI && okQ {
		t1.Value, t1.Limit, t1.Evaluated = qj.P99US, results.Round3(1.5*idle.P99US+frameUS), true
		t1.Met = t1.Value <= t1.Limit
	} else {
		t1.Note = "no QJump samples"
	}
	if okC && okQ && qj.P99US > 0 {
		t2.Value, t2.Evaluated = results.Round3(cont.P99US/qj.P99US), true
		t2.Met = t2.Value >= t2.Limit
	} else {
		t2.Note = "no QJump samples"
	}
	return []results.Target{t1, t2}
}

// pingIperfPlots are Fig. 3a (the probe's one-way latency and ping's round trip, idle against the
// shared switch queue without and with QJump) and every Table 1 arm's probe round trip.
func pingIperfPlots(r *Results, rows []results.Row, dir string) ([]string, error) {
	fig3a := []string{"idle", "switch-queue", "qjump"}
	var all []string
	for _, a := range r.Arms {
		all = append(all, a.Name)
	}
	return results.DrawCDFs(rows, dir,
		results.CDFPlot{File: "fig3a-probe-oneway.png", Title: "Fig. 3a: probe one-way latency, h1→h2 (kernel timestamps)",
			XLabel: "latency (µs)", Arms: fig3a, Tool: toolProbe, Metric: metricOneWay},
		results.CDFPlot{File: "fig3a-ping-rtt.png", Title: "Fig. 3a: ping round trip, h1→h2",
			XLabel: "latency (µs)", Arms: fig3a, Tool: toolPing, Metric: metricRTT},
		results.CDFPlot{File: "table1-probe-rtt.png", Title: "Table 1 arms: probe round trip",
			XLabel: "latency (µs)", Arms: all, Tool: toolProbe, Metric: metricRTT})
}
