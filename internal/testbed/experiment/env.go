package experiment

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/version"
)

// Env is what an experiment's arms work with: the testbed, the options, the results and rows
// recorded so far, and the programs the current arm started.
type Env struct {
	opts    Options
	tb      *testbed.Testbed
	res     *Results
	mu      sync.Mutex // rows: tools of one arm run side by side
	rows    []results.Row
	procs   procs
	logMu   sync.Mutex // logf: a long arm's progress (stillRunning) logs from a goroutine of its own
	qjumpOn bool
	port    int // next free TCP/UDP port for a server
}

// probePacket is P, the wire bytes a host may send per epoch at factor 1: what `qjump up` takes
// from the hosts' 1500-byte MTU when P is left to the device, one full frame on the wire (1538 B).
var probePacket = model.DefaultPacket

// hostPacket is P on the testbed's hosts: PCP marking pushes a 4-byte tag on every frame.
func hostPacket(c testbed.Config) model.Bytes {
	return model.FullFrameWire(model.DefaultMTU, c.Classify == testbed.ClassifyPCP)
}

func newEnv(e experiment, o Options) *Env {
	env := &Env{opts: o, port: 5201}
	env.res = &Results{Header: results.Header{Experiment: e.name, Title: e.title, Quick: o.Quick, Started: time.Now().UTC(), Build: version.Get()},
		Testbed: o.Testbed, BulkCC: o.BulkCC}
	env.setEpsilon(o.Epsilon)
	return env
}

func (env *Env) logf(format string, args ...any) {
	if env.opts.Progress != nil {
		env.logMu.Lock()
		defer env.logMu.Unlock()
		fmt.Fprintf(env.opts.Progress, "[%s] %s\n", time.Since(env.res.Started).Truncate(100*time.Millisecond), fmt.Sprintf(format, args...))
	}
}

// modelConfig is the QJump model of the testbed with the given factors.
func (env *Env) modelConfig(factors model.Factors) model.Config {
	return env.res.Model.config(factors)
}

// setEpsilon records ε and the model figures that depend on it.
func (env *Env) setEpsilon(eps time.Duration) { env.res.Model = modelInfo(env.opts.Testbed, eps) }

// modelInfo is the model of testbed c with ε = eps.
func modelInfo(c testbed.Config, eps time.Duration) ModelInfo {
	p := hostPacket(c)
	m := ModelInfo{Hosts: c.Hosts, RateBPS: float64(c.Rate), PacketBytes: int64(p),
		EpsilonNS: int64(eps), Mesochronous: model.DefaultMesochronous,
		FrameTimeNS: int64(float64(p) * 8 / float64(c.Rate) * 1e9)}
	m.EpochNS = int64(m.config(model.DefaultFactors()).Epoch())
	return m
}

// measureEpsilon sets ε from the idle arm: the p99 one-way latency of a small probe through the
// emulated switch is what the switch and the hosts' stacks add beyond serialisation. An ε given
// (Options.EpsilonGiven), 0 included, is kept.
func (env *Env) measureEpsilon(idleArm string) {
	if env.opts.EpsilonGiven {
		env.logf("ε = %s (given with --epsilon)", model.DurationText(env.opts.Epsilon))
		return
	}
	s := env.stats(idleArm, toolProbe, metricOneWay)
	eps := epsilonOf(s.P99US)
	env.setEpsilon(eps)
	env.logf("ε = %s (idle one-way p99 of the probe, %.1fµs, rounded up to 10µs)", model.DurationText(eps), s.P99US)
}

// epsilonStep is what a measured ε is rounded up to, at least one of it.
const epsilonStep = 10 * time.Microsecond

// epsilonOf is ε from the idle one-way p99 (µs): rounded up to epsilonStep, never down, since ε
// is an input of the bounds (an ε below the p99 it stands for makes every bound short by the
// difference: 150 µs for a p99 of 153 µs).
func epsilonOf(p99US float64) time.Duration {
	d := time.Duration(math.Ceil(p99US * 1e3))
	return max((d+epsilonStep-1)/epsilonStep*epsilonStep, epsilonStep)
}

// qjumpUp enables QJump on every host with factors, through the real `qjump up`.
func (env *Env) qjumpUp(ctx context.Context, factors model.Factors) error {
	cfg := env.modelConfig(factors)
	// P is left to the device (auto), as an operator would: the model above assumes the same.
	args := []string{"--hosts", strconv.Itoa(cfg.Hosts), "--rate", strconv.FormatInt(int64(cfg.Rate), 10),
		"--epsilon", strconv.FormatInt(cfg.Epsilon.Nanoseconds(), 10) + "ns",
		"--mesochronous", strconv.Itoa(cfg.Mesochronous), "--factors", factors.String()}
	// The arguments that ran, the testbed's own (--dev, --mode shape, --mark) among them. Shape
	// mode: the bounds the targets are judged against count its burst (ModelInfo.config).
	env.res.QJump.UpArgs = env.tb.UpArgs(config.Shape, args)
	env.logf("qjump up on every host: %v", env.res.QJump.UpArgs)
	if err := env.tb.EnableQJump(ctx, config.Shape, args); err != nil {
		return fmt.Errorf("enable qjump: %w", err)
	}
	env.qjumpOn = true
	return nil
}

func (env *Env) qjumpDown(ctx context.Context) error {
	if !env.qjumpOn {
		return nil
	}
	env.qjumpOn = false
	return env.tb.DisableQJump(context.WithoutCancel(ctx))
}

// atLevel puts argv on QJump level l when QJump is on; without it every program shares one FIFO.
func (env *Env) atLevel(l model.Level, static bool, argv ...string) []string {
	if !env.qjumpOn {
		return argv
	}
	return testbed.AtLevel(int(l), static, argv...)
}

func (env *Env) nextPort() int {
	env.port++
	return env.port
}

func (env *Env) addr(host int) string { return env.tb.Names.HostAddr(host).String() }

func (env *Env) hostPort(host, port int) string { return env.addr(host) + ":" + strconv.Itoa(port) }

// sleep waits d or until the run is interrupted.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (env *Env) record(rows []results.Row) {
	env.mu.Lock()
	defer env.mu.Unlock()
	env.rows = append(env.rows, rows...)
}

// stats is the statistics of one series recorded so far, for the progress log.
func (env *Env) stats(arm, tool, metric string) results.Stats {
	env.mu.Lock()
	defer env.mu.Unlock()
	return results.Summarise(results.Where(env.rows, results.Key{Arm: arm, Tool: tool, Metric: metric}))
}

// skipArm records an arm that could not run, with the reason.
func (env *Env) skipArm(a results.Arm, reason string) {
	a.Skipped = reason
	env.res.Arms = append(env.res.Arms, a)
	env.logf("%s: skipped: %s", a.Name, reason)
}
