package experiment

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/probe"
	"github.com/qjump-net/qjump/internal/testbed"
)

// fan-in is the paper's Fig. 11: every host but h1 sends level-7 probes of nearly P bytes at f7
// packets per epoch to h1 while also sending bulk at level 0 to h1, for f7 from 0.5 to 4. The
// model bounds a level-7 packet's delay by D7 = n·P·8·f7/R + ε (model.Config.FanIn) and guarantees
// it while f7 ≤ m; the region A, where no sample may exceed it, is f7 ≤ 1 (with m = 2).
// The experiment measures one-way latency with kernel timestamps against that bound.
func init() {
	register(experiment{name: "fan-in", title: "fan-in latency bound (Fig. 11)", hosts: 5, minHosts: 3,
		run: runFanIn, targets: fanInTargets, plots: fanInPlots, paper: fanInPaper})
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

// fanInPaper is the paper's region for an arm (Fig. 11: 60-host fan-in, simulated), beside the
// network latency, which is what the paper's bound is about.
func fanInPaper(s Series) string {
	if s.Tool == "probe" && s.Metric == "oneway" {
		return ""
	}
	var f7 float64
	if _, err := fmt.Sscanf(s.Arm, "f7=%g", &f7); err != nil {
		return ""
	}
	switch {
	case f7 <= 1:
		return "A: bound met"
	case f7 <= 2.7:
		return "B: outliers, within bound"
	default:
		return "C: permanent queueing"
	}
}

func fanInArm(f7 float64) string { return "f7=" + strconv.FormatFloat(f7, 'g', -1, 64) }

func runFanIn(env *Env) error {
	per := 5 * time.Second
	if env.opts.Quick {
		per = 1500 * time.Millisecond
	}
	n := env.tb.Config.Hosts
	env.logf("[noise] idle network, no QJump: every sender probes h1 at f7=1, no bulk")
	if err := runFanInArm(env, Arm{Name: "noise", Description: "idle network, no QJump, probes at f7=1", Bulk: "none", Param: 1}, per, false); err != nil {
		return err
	}
	if err := env.probeRR(probeSpec{arm: "idle-probe", from: 2, to: 1, count: 300, interval: 2 * time.Millisecond, size: 64}); err != nil {
		return err
	}
	env.measureEpsilon("idle-probe")
	contended := Arm{Name: "contended", Description: "probes at f7=1 and bulk from every sender, no QJump", Bulk: fanInBulkText(n), Param: 1}
	env.logf("[contended] %s", contended.Description)
	if err := runFanInArm(env, contended, per, true); err != nil {
		return err
	}
	for i, f7 := range fanInSweep(env.opts.Quick) {
		arm := Arm{Name: fanInArm(f7), Description: "QJump on: probes at level 7 with factor f7, bulk at level 0",
			Bulk: fanInBulkText(n), QJump: true, Param: f7}
		bound, guaranteed := fanInBound(env.res.Model, f7)
		arm.BoundUS, arm.BoundGuaranteed = round3(float64(bound)/1e3), guaranteed
		_ = env.qjumpDown()
		if err := env.qjumpUp(model.Factors{7: model.Limited(f7), 0: model.Unlimited()}); err != nil {
			return err
		}
		env.logf("[%d/%d] %s", i+1, len(fanInSweep(env.opts.Quick)), arm.Name)
		if err := runFanInArm(env, arm, per, true); err != nil {
			return err
		}
	}
	return env.qjumpDown()
}

func fanInBulkText(n int) string {
	if n == 3 {
		return "h2→h1, h3→h1"
	}
	return fmt.Sprintf("h2..h%d→h1", n)
}

// runFanInArm runs one point: a one-way probe server on h1, probes (and bulk) from every other host.
func runFanInArm(env *Env, arm Arm, per time.Duration, bulk bool) error {
	defer env.procs.stopAll()
	n := env.tb.Config.Hosts
	warm := time.Duration(0)
	if bulk {
		warm = time.Second
		for h := 2; h <= n; h++ {
			if err := env.bulk(h, 1, warm+per+10*time.Second); err != nil {
				return err
			}
		}
		if err := env.sleep(warm); err != nil {
			return err
		}
	}
	epoch := env.modelConfig(model.Factors{7: model.Limited(1)}).Epoch()
	interval := time.Duration(float64(epoch) / arm.Param)
	count := int(per / interval)
	port := env.nextPort()
	raw := filepath.Join(env.opts.OutDir, "raw", arm.Name+"-arrivals.csv")
	srv, err := env.startProbeServer(1, env.hostPort(1, port), "--for", (2*per + 10*time.Second).String(), "--out", raw)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(port), 7))
	var clients []*proc
	for h := 2; h <= n; h++ {
		// Senders start at random offsets within an epoch: host epochs are not aligned (hence m).
		if err := env.sleep(time.Duration(rng.Int64N(int64(interval)/int64(n) + 1))); err != nil {
			return err
		}
		p, err := start(fmt.Sprintf("probe h%d→h1", h), env.tb.Exec(h, env.atLevel(model.TopLevel, true, testbed.Binary, "probe", "client",
			"--to", env.hostPort(1, port), "--mode", "oneway", "--count", strconv.Itoa(count), "--interval", interval.String(),
			"--size", strconv.Itoa(fanInPayload), "--sender", strconv.Itoa(h), "--out", sentFile(env, arm, h))...))
		if err != nil {
			return err
		}
		clients = append(clients, p)
	}
	for _, c := range clients {
		if err := c.wait(env.ctx); err != nil {
			return err
		}
	}
	// The last probes are in flight for at most the longest queue; then the server writes its file.
	if err := env.sleep(200 * time.Millisecond); err != nil {
		return err
	}
	srv.stop()
	if !srv.cmd.ProcessState.Success() {
		return fmt.Errorf("probe server: %s: %s", srv.cmd.ProcessState, srv.out.String())
	}
	rows, err := readArrivals(env, raw, arm, count, n)
	if err != nil {
		return err
	}
	env.record(rows)
	env.res.Arms = append(env.res.Arms, arm)
	s, nw := summarise(rowsWhere(env.rows, arm.Name, "probe", "oneway")), summarise(rowsWhere(env.rows, arm.Name, "probe", "network"))
	env.logf("       %d probes, %d lost, one-way p50 %.0fµs p99 %.0fµs max %.0fµs; network p99 %.0fµs max %.0fµs",
		s.Samples, s.Lost, s.P50US, s.P99US, s.MaxUS, nw.P99US, nw.MaxUS)
	return nil
}

func sentFile(env *Env, arm Arm, h int) string {
	return filepath.Join(env.opts.OutDir, "raw", fmt.Sprintf("%s-h%d-sent.csv", arm.Name, h))
}

// readArrivals turns the server's arrival file into rows, two per probe sent: "oneway" from the
// sender's application clock, which includes waiting in the sender's own qdisc (QJump's shaper
// holding a packet its level may not send yet), and "network" from the sender's kernel transmit
// stamp to the receiver's kernel receive stamp, which is what the model bounds. A probe that never
// arrived is lost in both.
func readArrivals(env *Env, path string, arm Arm, count, hosts int) ([]Row, error) {
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
	var rows []Row
	for h := 2; h <= hosts; h++ {
		tx, err := readTxStamps(sentFile(env, arm, h))
		if err != nil {
			return nil, err
		}
		for seq := uint64(0); seq < uint64(count); seq++ {
			a, ok := got[key{h, seq}]
			row := Row{Arm: arm.Name, Tool: "probe", Metric: "oneway", Sender: h, Seq: seq,
				SendNS: a.SendNS, LatencyNS: a.RecvNS - a.SendNS, Lost: !ok, Param: arm.Param}
			net := row
			net.Metric = "network"
			if t := tx[seq]; ok && t != 0 {
				net.LatencyNS = a.RecvNS - t
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

// fanInBound is the model's D7 for factor f7 (model.Config.FanIn of the top level), and whether
// the model guarantees it. Beyond f7 = m the model promises nothing; so that the plot can show
// where the bound stops holding, the bound there is D7 at f7 = m continued linearly in f7 (what
// n·P·8·f7/R + ε gives).
func fanInBound(m ModelInfo, f7 float64) (time.Duration, bool) {
	fi := m.config(model.Factors{model.TopLevel: model.Limited(f7)}).FanIn(model.TopLevel)
	if fi.Guaranteed {
		return fi.Delay, true
	}
	mesochronous := float64(m.Mesochronous)
	atM := m.config(model.Factors{model.TopLevel: model.Limited(mesochronous)}).FanIn(model.TopLevel)
	eps := time.Duration(m.EpsilonNS)
	return time.Duration(float64(atM.Delay-eps)*f7/mesochronous) + eps, false
}

// fanInBoundUS is fanInBound in microseconds, for plots and targets.
func fanInBoundUS(r *Results, f7 float64) float64 {
	d, _ := fanInBound(r.Model, f7)
	return float64(d) / 1e3
}

func fanInTargets(r *Results) []Target {
	t := Target{Name: "region-a-bound", Unit: "µs",
		Criterion: "region A (f7 ≤ 1, m = 2): no probe's network latency (kernel transmit to kernel receive stamp) exceeds the model's bound n·P·8·f7/R + ε"}
	worst := -1.0
	for _, s := range r.Series {
		if s.Tool != "probe" || s.Metric != "network" || !armHasQJump(r, s.Arm) || s.Param > 1 {
			continue
		}
		bound := fanInBoundUS(r, s.Param)
		if over := s.MaxUS - bound; !t.Evaluated || over > worst {
			worst, t.Value, t.Limit, t.Evaluated = over, s.MaxUS, round3(bound), true
		}
	}
	if t.Evaluated {
		t.Met = worst <= 0
	} else {
		t.Note = "no QJump samples"
	}
	noise := Target{Name: "noise-floor", Unit: "µs",
		Criterion: "the idle network's own max network latency is within the f7=1 bound (else the strict form cannot hold)"}
	if s, ok := r.series("noise", "probe", "network"); ok {
		noise.Value, noise.Limit, noise.Evaluated = s.MaxUS, round3(fanInBoundUS(r, 1)), true
		noise.Met = noise.Value <= noise.Limit
	}
	return []Target{t, noise}
}

func armHasQJump(r *Results, arm string) bool {
	for _, a := range r.Arms {
		if a.Name == arm {
			return a.QJump && a.Skipped == ""
		}
	}
	return false
}
