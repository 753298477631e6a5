package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/probe"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
)

// fan-in is the paper's Fig. 11: every host but h1 sends level-7 probes of nearly P bytes at f7
// packets per epoch to h1 while also sending bulk at level 0 to h1, for f7 from 0.5 to 4. The
// model bounds a level-7 packet's delay by D7 = n·P·8·f7/R + ε (model.Config.FanIn in shape mode,
// which the testbed runs: one budget per host back to back, b = 1 at m = 2), at least the
// f7 = 1 value for whole frames (faninbound.go), and guarantees it while f7 ≤ m; the issue's
// region A, where no sample may exceed it, is f7 ≤ 1 (with m = 2).
// The experiment measures one-way latency with kernel timestamps against that bound.
func init() {
	register(experiment{name: "fan-in", title: "fan-in latency bound (Fig. 11)", hosts: 5, minHosts: 3, rate: fanInRate,
		run: runFanIn, targets: fanInTargets, plots: fanInPlots, paper: fanInPaper,
		lossAllowed: fanInLossAllowed, evidence: fanInEvidence, derive: lessStalls(metricNetwork),
		fromSeries: true, keepEvidence: fanInKeptEvidence})
}

// fanInPayload keeps a probe's frame (1400 + 28 + 14 = 1442 bytes) within P, so that one packet
// per epoch is exactly what factor 1 allows.
const fanInPayload = 1400

func fanInSweep(quick bool) []float64 {
	if quick {
		return []float64{0.5, 1, 2, 4}
	}
	return []float64{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}
}

// fanInRate is the fan-in's default R. At 10 Mb/s every queueing delay and the model's bound are
// ten times those at 100 Mb/s, while the emulation's own stalls (HTB's watchdog timer and the
// softirq that runs it, deferred on busy CPUs, and the scheduling of the veth backlog) are not:
// the noise floor falls from about the f7 = 1 bound to about 1/50 of it (docs/testbed.md).
const fanInRate = model.Rate(10e6)

// fanInDurations is how long each arm probes: a number of epochs, so that a lower rate keeps the
// sample count, with a floor in time for the fast rates. Region A's arms (f7 ≤ 1) and the noise
// arm, whose maxima decide the strict targets, probe longest: a full run sends 2,500 epochs, at
// f7 = 1 ten thousand level-7 probes from four senders.
func fanInDuration(quick bool, epoch time.Duration, regionA bool) time.Duration {
	epochs, floor := 400, 5*time.Second
	switch {
	case quick:
		epochs, floor = 240, 1500*time.Millisecond
	case regionA:
		epochs = 2500
	}
	return max(floor, time.Duration(epochs)*epoch)
}

func fanInArm(f7 float64) string { return "f7=" + strconv.FormatFloat(f7, 'g', -1, 64) }

func runFanIn(ctx context.Context, env *Env) error {
	// The epoch at the time of each arm: ε is measured after the noise arm and lengthens it, and
	// an arm sends per/interval probes with interval = epoch/f7 (runFanInArm).
	per := func(regionA bool) time.Duration {
		return fanInDuration(env.opts.Quick, env.modelConfig(model.Factors{7: model.Limited(1)}).Epoch(), regionA)
	}
	n := env.tb.Config.Hosts
	env.logf("[noise] idle network, no QJump: every sender probes h1 at f7=1, no bulk")
	if err := runFanInArm(ctx, env, results.Arm{Name: "noise", Description: "idle network, no QJump, probes at f7=1", Bulk: "none", Param: 1, HasParam: true}, per(true), false); err != nil {
		return err
	}
	if err := env.probeRR(ctx, probeSpec{arm: "idle-probe", from: 2, to: 1, count: 300, interval: 2 * time.Millisecond, size: 64}); err != nil {
		return err
	}
	env.measureEpsilon("idle-probe")
	contended := results.Arm{Name: "contended", Description: "probes at f7=1 and bulk from every sender, no QJump", Bulk: fanInBulkText(n), Param: 1, HasParam: true}
	env.logf("[contended] %s", contended.Description)
	if err := runFanInArm(ctx, env, contended, per(false), true); err != nil {
		return err
	}
	for i, f7 := range fanInSweep(env.opts.Quick) {
		arm := results.Arm{Name: fanInArm(f7), Description: "QJump on: probes at level 7 with factor f7, bulk at level 0",
			Bulk: fanInBulkText(n), QJump: true, Param: f7, HasParam: true}
		bound, guaranteed := fanInBound(env.res.Model, f7)
		arm.BoundUS, arm.BoundGuaranteed = results.Round3(float64(bound)/1e3), guaranteed
		_ = env.qjumpDown(ctx)
		if err := env.qjumpUp(ctx, model.Factors{7: model.Limited(f7), 0: model.Unlimited()}); err != nil {
			return err
		}
		env.logf("[%d/%d] %s", i+1, len(fanInSweep(env.opts.Quick)), arm.Name)
		if err := runFanInArm(ctx, env, arm, per(f7 <= 1), true); err != nil {
			return err
		}
	}
	return env.qjumpDown(ctx)
}

func fanInBulkText(n int) string {
	if n == 3 {
		return "h2→h1, h3→h1"
	}
	return fmt.Sprintf("h2..h%d→h1", n)
}

// runFanInArm runs one point: a one-way probe server on h1, probes (and bulk) from every other host.
func runFanInArm(ctx context.Context, env *Env, arm results.Arm, per time.Duration, bulk bool) error {
	defer env.procs.stopAll()
	n := env.tb.Config.Hosts
	warm := time.Duration(0)
	if bulk {
		warm = time.Second
		for h := 2; h <= n; h++ {
			if err := env.bulk(ctx, h, 1, warm+per+10*time.Second); err != nil {
				return err
			}
		}
		if err := sleep(ctx, warm); err != nil {
			return err
		}
	}
	epoch := env.modelConfig(model.Factors{7: model.Limited(1)}).Epoch()
	interval := time.Duration(float64(epoch) / arm.Param)
	count := int(per / interval)
	port := env.nextPort()
	raw := filepath.Join(env.opts.OutDir, "raw", arm.Name+"-arrivals.csv")
	srv, err := env.startProbeServer(ctx, 1, env.hostPort(1, port), "--for", (2*per + 10*time.Second).String(), "--out", raw)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(port), 7))
	var clients []*proc
	for h := 2; h <= n; h++ {
		// Senders start at random offsets within an epoch: host epochs are not aligned (hence m).
		if err := sleep(ctx, time.Duration(rng.Int64N(int64(interval)/int64(n)+1))); err != nil {
			return err
		}
		// Through env.procs, which the deferred stopAll stops with SIGTERM on any return: a
		// client only start()ed and not yet waited for was left to Pdeathsig's SIGKILL, so its
		// `qjump run --mode cgroup` wrapper never removed its cgroup.
		p, err := env.procs.start(fmt.Sprintf("probe h%d→h1", h), env.tb.Exec(h, env.atLevel(model.TopLevel, true, testbed.Binary, "probe", "client",
			"--to", env.hostPort(1, port), "--mode", string(probe.OneWay), "--count", strconv.Itoa(count), "--interval", interval.String(),
			"--size", strconv.Itoa(fanInPayload), "--sender", strconv.Itoa(h), "--out", sentFile(env, arm, h))...))
		if err != nil {
			return err
		}
		clients = append(clients, p)
	}
	stop := env.stillRunning(arm.Name, per)
	defer stop()
	for _, c := range clients {
		if err := c.wait(ctx); err != nil {
			return err
		}
	}
	// The last probes are in flight for at most the longest queue; then the server writes its file.
	if err := sleep(ctx, 200*time.Millisecond); err != nil {
		return err
	}
	if err := stopServer(srv); err != nil {
		return err
	}
	rows, err := readArrivals(env, raw, arm, count, n)
	if err != nil {
		return err
	}
	env.record(rows)
	env.res.Arms = append(env.res.Arms, arm)
	s, nw := env.stats(arm.Name, toolProbe, metricOneWay), env.stats(arm.Name, toolProbe, metricNetwork)
	env.logf("       %d probes, %d lost, one-way p50 %.0fµs p99 %.0fµs max %.0fµs; network p99 %.0fµs max %.0fµs",
		s.Samples, s.Lost, s.P50US, s.P99US, s.MaxUS, nw.P99US, nw.MaxUS)
	return nil
}

func sentFile(env *Env, arm results.Arm, h int) string {
	return filepath.Join(env.opts.OutDir, "raw", fmt.Sprintf("%s-h%d-sent.csv", arm.Name, h))
}

// readArrivals turns the server's arrival file into rows, two per probe sent: "oneway" from the
// sender's application clock, which includes waiting in the sender's own qdisc (QJump's shaper
// holding a packet its level may not send yet), and "network" from the sender's kernel transmit
// stamp to the receiver's kernel receive stamp, which is what the model bounds. Each row's SendNS
// is where its latency starts (the application clock, or the transmit stamp), so that both kernel
// stamps of a network sample are in samples.csv. A probe that never arrived is lost in both.
func readArrivals(env *Env, path string, arm results.Arm, count, hosts int) ([]results.Row, error) {
	arrivals, err := probe.ReadFile(path, probe.ReadServerCSV)
	if err != nil {
		return nil, err
	}
	type key struct {
		sender int
		seq    uint64
	}
	got := map[key]probe.Arrival{}
	for _, a := range arrivals {
		got[key{int(a.Sender), a.Seq}] = a
	}
	var rows []results.Row
	for h := 2; h <= hosts; h++ {
		tx, err := readTxStamps(sentFile(env, arm, h))
		if err != nil {
			return nil, err
		}
		for seq := uint64(0); seq < uint64(count); seq++ {
			a, ok := got[key{h, seq}]
			row := results.Row{Arm: arm.Name, Tool: toolProbe, Metric: metricOneWay, Sender: h, Seq: seq,
				SendNS: a.SendNS, LatencyNS: a.RecvNS - a.SendNS, Lost: !ok, Param: arm.Param}
			net := row
			net.Metric = metricNetwork
			if t := tx[seq]; ok && t != 0 {
				net.SendNS, net.LatencyNS = t, a.RecvNS-t
			} else {
				net.Lost = true
			}
			rows = append(rows, row, net)
		}
	}
	return rows, nil
}

// readTxStamps reads a one-way sender's file: seq → kernel transmit stamp.
func readTxStamps(path string) (map[uint64]int64, error) {
	samples, err := probe.ReadFile(path, probe.ReadClientCSV)
	if err != nil {
		return nil, err
	}
	tx := map[uint64]int64{}
	for _, s := range samples {
		tx[s.Seq] = s.TxNS
	}
	return tx, nil
}
