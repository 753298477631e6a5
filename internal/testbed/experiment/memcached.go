package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/probe"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/vishvananda/netlink"
)

// memcached is the paper's Fig. 3b: memcached on h2 at an intermediate level (5), a closed-loop
// client on h1, and bulk iperf3 into both of their switch ports from the other hosts.
func init() {
	register(experiment{name: "memcached", title: "memcached vs bulk (Fig. 3b)", hosts: 4, minHosts: 3,
		run: runMemcached, targets: memcachedTargets, plots: memcachedPlots, paper: memcachedPaper})
}

// kvLevel is memcached's level, as in the paper: below the guaranteed level, above bulk.
const kvLevel = 5

func memcachedPaper(_ *Results, s results.Series) string {
	switch s.Arm {
	case "contended":
		return "median 824µs (10G, Hadoop)"
	case "qjump":
		return "median 476µs"
	}
	return ""
}

func memcachedBulk(hosts int) [][2]int {
	if hosts >= 4 {
		return [][2]int{{3, 1}, {4, 2}}
	}
	return [][2]int{{3, 1}}
}

// memcachedContended describes the contended arm by the ports its bulk flows fill: with 3 hosts
// only h3→h1 runs, into the client's port alone.
func memcachedContended(bulk [][2]int) string {
	if len(bulk) == 1 {
		return "bulk iperf3 into the client's switch port"
	}
	return "bulk iperf3 into the client's and the server's switch ports"
}

func runMemcached(ctx context.Context, env *Env) error {
	count, interval, warm, limit := 5000, time.Millisecond, 2*time.Second, 40*time.Second
	if env.opts.Quick {
		count, interval, warm, limit = 800, 1500*time.Microsecond, time.Second, 5*time.Second
	}
	bulk := memcachedBulk(env.tb.Config.Hosts)
	arms := []struct {
		arm  results.Arm
		bulk [][2]int
	}{
		{results.Arm{Name: "idle", Description: "memcached h2, client h1, idle network", Bulk: "none"}, nil},
		{results.Arm{Name: "contended", Description: memcachedContended(bulk), Bulk: bulkText(bulk)}, bulk},
		{results.Arm{Name: "qjump", Description: "as contended, QJump on: memcached at level 5, bulk at level 0", Bulk: bulkText(bulk), QJump: true}, bulk},
	}
	for i, a := range arms {
		if a.arm.QJump {
			// Level 5 gets half the edge rate, as the paper gave memcached 5Gb/s of 10G: far above
			// what the workload sends, so the budget never binds.
			base := env.modelConfig(model.Factors{model.TopLevel: model.Limited(1), 0: model.Unlimited()})
			cfg := base.WithTargetRates(map[model.Level]model.Rate{kvLevel: base.Rate / 2})
			if err := env.qjumpUp(ctx, cfg.Factors); err != nil {
				return err
			}
		}
		env.logf("[%d/%d] %s: %s", i+1, len(arms), a.arm.Name, a.arm.Description)
		if err := runMemcachedArm(ctx, env, a.arm.Name, a.bulk, count, interval, warm, limit); err != nil {
			return err
		}
		env.res.Arms = append(env.res.Arms, a.arm)
		s := env.stats(a.arm.Name, toolMemcached, metricRequest)
		env.logf("       request p50 %.0fµs p99 %.0fµs", s.P50US, s.P99US)
		if a.arm.Name == "idle" {
			if err := env.probeRR(ctx, probeSpec{arm: "idle-probe", from: 1, to: 2, count: 200, interval: 2 * time.Millisecond, size: 64}); err != nil {
				return err
			}
			env.measureEpsilon("idle-probe")
		}
	}
	return env.qjumpDown(ctx)
}

func runMemcachedArm(ctx context.Context, env *Env, arm string, bulk [][2]int, count int, interval, warm, limit time.Duration) error {
	defer env.procs.stopAll()
	port := env.nextPort()
	srv := env.tb.Exec(2, env.atLevel(kvLevel, false, "memcached", "-u", "nobody", "-l", env.addr(2),
		"-p", strconv.Itoa(port), "-U", "0", "-t", "1", "-m", "64")...)
	mc, err := env.procs.start("memcached", srv)
	if err != nil {
		return err
	}
	if err := env.awaitTCP(ctx, mc, tcpState{host: 2, state: netlink.TCP_LISTEN, port: port, n: 1}); err != nil {
		return err
	}
	// Populate the key space before the bulk traffic starts: it is set-up, not measurement.
	kv := func(extra ...string) []string {
		return env.tb.Exec(1, env.atLevel(kvLevel, true, append([]string{testbed.Binary, "probe", "memcached",
			"--server", env.hostPort(2, port), "--value", "1024", "--keys", "1000"}, extra...)...)...)
	}
	if _, err := runOut(ctx, kv("--count", "0", "--out", os.DevNull)); err != nil {
		return fmt.Errorf("populate memcached: %w", err)
	}
	for _, f := range bulk {
		if err := env.bulk(ctx, f[0], f[1], warm+limit+10*time.Second); err != nil {
			return err
		}
	}
	if len(bulk) > 0 {
		if err := sleep(ctx, warm); err != nil {
			return err
		}
	}
	raw := filepath.Join(env.opts.OutDir, "raw", arm+"-memcached.csv")
	argv := kv("--populate=false", "--count", strconv.Itoa(count), "--interval", interval.String(),
		"--get-ratio", "0.9", "--seed", "1", "--for", limit.String(), "--out", raw)
	if _, err := runOut(ctx, argv); err != nil {
		return fmt.Errorf("memcached load: %w", err)
	}
	rows, err := readKVCSV(raw, arm)
	if err != nil {
		return err
	}
	env.record(rows)
	return nil
}

func readKVCSV(path, arm string) ([]results.Row, error) {
	samples, err := probe.ReadFile(path, probe.ReadKVCSV)
	if err != nil {
		return nil, err
	}
	var rows []results.Row
	for _, k := range samples {
		rows = append(rows, results.Row{Arm: arm, Tool: toolMemcached, Metric: metricRequest, Sender: 1, Seq: uint64(k.Seq),
			SendNS: k.SendNS, LatencyNS: k.LatencyNS, Lost: !k.OK})
	}
	return rows, nil
}

func memcachedTargets(r *Results) []results.Target {
	idle, okI := r.series("idle", toolMemcached, metricRequest)
	cont, okC := r.series("contended", toolMemcached, metricRequest)
	qj, okQ := r.series("qjump", toolMemcached, metricRequest)
	t1 := results.Target{Name: "qjump-near-idle", Unit: "µs", LimitFromRun: true, Criterion: "QJump p99 ≤ 1.5 × idle p99 (memcached request latency)"}
	t2 := results.Target{Name: "contended-vs-idle", Unit: "×", Criterion: "contended p99 ≥ 5 × idle p99", Limit: 5}
	if okI && okQ {
		t1.Value, t1.Limit, t1.Evaluated = qj.P99US, results.Round3(1.5*idle.P99US), true
		t1.Met = t1.Value <= t1.Limit
	} else {
		t1.Note = "no QJump samples"
	}
	if okI && okC && idle.P99US > 0 {
		t2.Value, t2.Evaluated = results.Round3(cont.P99US/idle.P99US), true
		t2.Met = t2.Value >= t2.Limit
	}
	return []results.Target{t1, t2}
}

func memcachedPlots(_ *Results, rows []results.Row, dir string) ([]string, error) {
	return results.DrawCDFs(rows, dir, results.CDFPlot{File: "fig3b-memcached.png", Title: "Fig. 3b: memcached request latency",
		XLabel: "request latency (µs)", Arms: []string{"idle", "contended", "qjump"}, Tool: toolMemcached, Metric: metricRequest})
}
