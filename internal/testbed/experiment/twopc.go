package experiment

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/apps/twopc"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/vishvananda/netlink"
)

// 2pc is the paper's Fig. 6: our two-phase commit (`qjump 2pc`, internal/apps/twopc), one
// coordinator on h1 and a server on each of h2..h(n-2), over tcp, udp with acknowledgements and
// over qjump (level 7, f7 = 1, each PREPARE and DECIDE one broadcast datagram without
// acknowledgement). Interference comes from the paper's two generators, both iperf3 UDP at level 0
// into the coordinator's switch port, where every vote and DONE arrives: a constant stream at the
// link rate from h(n-1), and bursts of ratio × B packets (B the switch queue) at the link rate
// followed by a 25 ms pause from h(n). Committed transactions per second are measured against
// the ratio for each transport, then failure detection: a server is frozen (SIGSTOP, a host that
// dies without closing its connections) mid-run and the coordinator's time to notice is measured.
func init() {
	register(experiment{name: "2pc", title: "two-phase commit vs interference (Fig. 6)", hosts: 10, minHosts: 5,
		run: runTwoPC, targets: twoPCTargets, plots: twoPCPlots, paper: twoPCPaper, plotted: twoPCPlotted, fromSeries: true})
}

const (
	toolTwoPC     = "2pc"
	metricTxn     = "txn"           // one transaction, start to end, committed or aborted
	metricAbort   = "abort"         // an aborted transaction again, so that commits are txn − abort
	metricFalse   = "false-failure" // a live server declared dead during a throughput arm
	metricDetect  = "detect"        // a frozen server: from the freeze to the coordinator's verdict
	metricDetectM = "detect-msg"    // the same, from the message it did not answer
	twoPCLevel    = model.TopLevel
	twoPCPause    = 25 * time.Millisecond // the burst generator's pause, as the paper's
	genPayload    = 1472                  // UDP payload of a full 1514-byte frame
	// twoPCUDPTimeout is udp's retransmission timeout, the verb's default.
	twoPCUDPTimeout = 25 * time.Millisecond
)

var twoPCTransports = []twopc.Transport{twopc.TCP, twopc.UDP, twopc.QJump}

func twoPCRatios(quick bool) []float64 {
	if quick {
		return []float64{4}
	}
	return []float64{0.5, 1, 2, 3, 4}
}

func twoPCArm(t twopc.Transport, ratio float64) string {
	if ratio == 0 {
		return string(t) + " idle"
	}
	return fmt.Sprintf("%s r=%g", t, ratio)
}

// twoPCHosts are the coordinator, the servers, and the two generators' hosts.
type twoPCHosts struct {
	servers            []int
	constant, bursting int
}

func twoPCLayout(n int) twoPCHosts {
	h := twoPCHosts{constant: n - 1, bursting: n}
	for s := 2; s <= n-2; s++ {
		h.servers = append(h.servers, s)
	}
	return h
}

// burstGen is iperf3's burst mode for a ratio: N = ratio·B datagrams back to back, and an average
// rate that leaves twoPCPause between the end of one burst at R and the start of the next.
func burstGen(ratio float64, buffer int, r model.Rate) (n int, rate float64) {
	n = max(1, int(math.Round(ratio*float64(buffer))))
	burst := float64(n) * testbed.MaxFrame * 8 / float64(r)
	return n, float64(n) * genPayload * 8 / (burst + twoPCPause.Seconds())
}

// constantRate is the UDP payload rate whose frames fill R.
func constantRate(r model.Rate) float64 { return float64(r) * genPayload / testbed.MaxFrame }

type twoPCPlan struct{ per, detectRun, freezeAt time.Duration }

func twoPCPlanFor(quick bool) twoPCPlan {
	if quick {
		return twoPCPlan{per: 2 * time.Second, detectRun: 2500 * time.Millisecond, freezeAt: time.Second}
	}
	return twoPCPlan{per: 5 * time.Second, detectRun: 4 * time.Second, freezeAt: 2 * time.Second}
}

func runTwoPC(ctx context.Context, env *Env) error {
	lay := twoPCLayout(env.tb.Config.Hosts)
	plan := twoPCPlanFor(env.opts.Quick)
	if err := env.probeRR(ctx, probeSpec{arm: "idle-probe", from: 2, to: 1, count: 200, interval: 2 * time.Millisecond, size: 64}); err != nil {
		return err
	}
	env.measureEpsilon("idle-probe")
	factors := model.Factors{twoPCLevel: model.Limited(1), 0: model.Unlimited()}
	epoch := env.modelConfig(factors).Epoch()
	c := twoPCCoord{plan: plan, lay: lay, epoch: epoch}
	ratios := append([]float64{0}, twoPCRatios(env.opts.Quick)...)
	for _, t := range twoPCTransports {
		if t == twopc.QJump {
			if err := env.qjumpUp(ctx, factors); err != nil {
				return err
			}
		}
		c.timeouts = throughputTimeouts(t, epoch)
		for _, ratio := range ratios {
			if err := c.throughputArm(ctx, env, t, ratio, false); err != nil {
				return err
			}
		}
		if t == twopc.QJump {
			if err := c.throughputArm(ctx, env, t, ratios[len(ratios)-1], true); err != nil {
				return err
			}
			c.timeouts = []string{"--detect-epochs", strconv.Itoa(chooseDetectEpochs(env, epoch))}
		} else {
			c.timeouts = nil // the verb's defaults: tcp 150 ms, udp 6 × 25 ms on both sides
		}
		if err := c.detectArm(ctx, env, t); err != nil {
			return err
		}
	}
	return env.qjumpDown(ctx)
}

// throughputWait is how long a server may stay silent in the throughput arms before it is
// declared dead, for every transport: long enough for a full queue's delays and a TCP
// retransmission timeout or three (200 ms, doubling), so that the rate measures what delay and
// retransmission do to the protocol, not a failure detector's verdicts (measured apart). It does
// not cover every wait: behind a full queue that tail-drops, tcp's timeouts back off past it (the
// review's quick run declared 4 of 7 live servers dead at ratio 4, the committed full run 1-7 in
// every tcp arm with interference), and then the arm's rate counts the wait. The target
// no-false-failure and the progress say so wherever it happens.
const throughputWait = 2 * time.Second

func throughputTimeouts(t twopc.Transport, epoch time.Duration) []string {
	switch t {
	case twopc.TCP:
		return []string{"--timeout", throughputWait.String()}
	case twopc.UDP:
		return []string{"--timeout", twoPCUDPTimeout.String(), "--retries", strconv.Itoa(int(throughputWait/twoPCUDPTimeout) - 1)}
	default:
		return []string{"--detect-epochs", strconv.Itoa(int(math.Ceil(float64(throughputWait) / float64(epoch))))}
	}
}

// chooseDetectEpochs is the qjump transport's failure timeout in epochs on this machine: the
// paper's two epochs, or more when the idle arm's slowest phase (PREPARE broadcast to the last
// vote, which the network delivers within an epoch) took longer, since a server the machine did not
// schedule in time would be declared dead though alive. Idle transactions more than stallFactor
// times the p99 are left out: on an idle network they are the machine standing still (one of
// 505 ms in a CI run, with a p99 of 2.3 ms), which no timeout short of it would survive anyway.
func chooseDetectEpochs(env *Env, epoch time.Duration) int {
	s := env.stats(twoPCArm(twopc.QJump, 0), toolTwoPC, metricTxn)
	slowest, left := slowestBelow(env, twoPCArm(twopc.QJump, 0), stallFactor*s.P99US)
	k := max(2, int(math.Ceil(slowest*1e3/2/float64(epoch)))) // a transaction is two phases
	env.logf("       qjump failure timeout: %d epochs of %s (idle transactions: p99 %.0fµs, max %.0fµs, %d over %d × p99 left out; the paper: 2 epochs)",
		k, model.DurationText(epoch), s.P99US, s.MaxUS, left, stallFactor)
	return k
}

// stallFactor: an idle transaction this many times the idle p99 is the machine's stall.
const stallFactor = 10

// slowestBelow is the longest delivered transaction of arm under limit (µs), and how many were
// over it.
func slowestBelow(env *Env, arm string, limitUS float64) (slowest float64, over int) {
	env.mu.Lock()
	defer env.mu.Unlock()
	for _, r := range results.Where(env.rows, results.Key{Arm: arm, Tool: toolTwoPC, Metric: metricTxn}) {
		us := float64(r.LatencyNS) / 1e3
		switch {
		case r.Lost:
		case us > limitUS:
			over++
		default:
			slowest = max(slowest, us)
		}
	}
	return slowest, over
}

// twoPCCoord runs one coordinator with its servers.
type twoPCCoord struct {
	plan     twoPCPlan
	lay      twoPCHosts
	epoch    time.Duration
	timeouts []string // the coordinator's failure timeout flags (udp: also the servers' retransmissions)
}

// throughputArm measures the committed rate under interference of ratio into the coordinator's
// port, or, with elsewhere, under the same generators sending between their own two hosts: no
// port shared with 2PC, only this machine's CPUs, which every namespace shares.
func (c *twoPCCoord) throughputArm(ctx context.Context, env *Env, t twopc.Transport, ratio float64, elsewhere bool) error {
	defer env.procs.stopAll()
	name := twoPCArm(t, ratio)
	d, from := c.plan.per, int64(0)
	var during func([]*proc, int)
	var ierr error
	probed := make(chan error, 1)
	arm := results.Arm{Name: name, QJump: t == twopc.QJump, Param: ratio, HasParam: true, Bulk: "none",
		Description: fmt.Sprintf("%s, %d servers, no interference", t, len(c.lay.servers))}
	if ratio > 0 {
		n, _ := burstGen(ratio, env.tb.Config.Buffer, env.tb.Config.Rate)
		to, toB := 1, 1
		if elsewhere {
			name, to, toB = string(t)+" machine-load", c.lay.bursting, c.lay.constant
			arm.Name, arm.Param, arm.HasParam = name, 0, false
		}
		arm.Bulk = fmt.Sprintf("UDP h%d→h%d at R; UDP h%d→h%d bursts of %d packets, 25 ms pause", c.lay.constant, to, c.lay.bursting, toB, n)
		arm.Description = fmt.Sprintf("%s, %d servers, interference ratio %g (burst / switch queue)", t, len(c.lay.servers), ratio)
		if elsewhere {
			arm.Description = fmt.Sprintf("%s, %d servers, the ratio-%g generators between their own hosts: only the machine's load", t, len(c.lay.servers), ratio)
		}
		// The coordinator connects (tcp) before the generators start, as a running system's
		// connections are up before interference comes; only the transactions that start once the
		// queue has built count.
		d, during = c.plan.per+interfereSetup, func(_ []*proc, port int) {
			if t == twopc.TCP {
				ierr = env.awaitTCP(ctx, coordProc(env), tcpState{host: 1, state: netlink.TCP_ESTABLISHED,
					port: port, remote: true, n: len(c.lay.servers)})
			}
			if ierr == nil {
				ierr = c.interfere(ctx, env, ratio, to, toB)
			}
			from = time.Now().UnixNano()
			if ierr != nil || t != twopc.QJump {
				return
			}
			// A probe at the 2PC level from a server's host to the coordinator's, side by side:
			// its kernel stamps tell the network's part of a reply's delay from the hosts' part.
			// (Without QJump the queue in front of the coordinator is full: nothing to tell apart,
			// and most probes would wait out their timeout.)
			go func() {
				probed <- env.probeRR(ctx, probeSpec{arm: name, from: c.lay.servers[0], to: 1,
					count: int(c.plan.per / (2 * time.Millisecond)), interval: 2 * time.Millisecond, size: 64})
			}()
		}
	}
	env.logf("[%s] %s", name, arm.Description)
	sum, rows, err := c.run(ctx, env, t, name, d, during)
	if during != nil && ierr == nil && t == twopc.QJump {
		err = errors.Join(err, <-probed)
	}
	if err = errors.Join(err, ierr); err != nil {
		return err
	}
	rows = slices.DeleteFunc(rows, func(r results.Row) bool { return r.SendNS < from })
	for i, f := range sum.Failures {
		rows = append(rows, results.Row{Arm: name, Tool: toolTwoPC, Metric: metricFalse, Sender: f.Server + 2, Seq: uint64(i),
			SendNS: f.SentNS, LatencyNS: f.DetectNS, Param: ratio})
	}
	env.record(rows)
	env.res.Arms = append(env.res.Arms, arm)
	s, ab := env.stats(name, toolTwoPC, metricTxn), env.stats(name, toolTwoPC, metricAbort)
	env.logf("       %d transactions, %d aborted, %s committed/s; %d server(s) declared dead, %d retransmissions",
		s.Samples, ab.Samples, rateText(committedPerSec(s, ab)), len(sum.Failures), sum.Retransmissions)
	if len(sum.Failures) > 0 {
		env.logf("       FALSE FAILURES: %s; the committed/s above counts those waits and the servers left out after them (target no-false-failure)",
			falseFailureText(sum.Failures))
	}
	return nil
}

// rateText is a rate as the progress prints it: whole from 10 up, and two digits below, where the
// collapsed arms are (0.2 committed/s printed as 0, the same as nothing committed).
func rateText(v float64) string {
	if v >= 10 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// falseFailureText says which live servers a throughput arm declared dead, and why: "4 live
// servers declared dead (no vote within 2s ×2, no done within 2s ×2)".
func falseFailureText(fs []twopc.FailureJSON) string {
	var causes []string
	count := map[string]int{}
	for _, f := range fs {
		if count[f.Cause]++; count[f.Cause] == 1 {
			causes = append(causes, f.Cause)
		}
	}
	for i, c := range causes {
		if count[c] > 1 {
			causes[i] = fmt.Sprintf("%s ×%d", c, count[c])
		}
	}
	return fmt.Sprintf("%d live server(s) declared dead (%s)", len(fs), strings.Join(causes, ", "))
}

// interfereSetup bounds the time to start both generators and let the queue build, on top of the
// measured time of an arm with interference.
const interfereSetup = 5 * time.Second

// coordProc is the 2pc coordinator the current arm started (the last program started).
func coordProc(env *Env) *proc { return env.procs[len(env.procs)-1] }

// interfere starts the two generators into the coordinator's port and lets the queue build.
func (c *twoPCCoord) interfere(ctx context.Context, env *Env, ratio float64, to, toB int) error {
	limit := c.plan.per + 30*time.Second
	constant := udpFlow{from: c.lay.constant, to: to, rate: model.Rate(constantRate(env.tb.Config.Rate))}
	if err := env.udpGen(ctx, constant, limit); err != nil {
		return err
	}
	n, avg := burstGen(ratio, env.tb.Config.Buffer, env.tb.Config.Rate)
	if err := env.udpGen(ctx, udpFlow{from: c.lay.bursting, to: toB, rate: model.Rate(avg), burst: n}, limit); err != nil {
		return err
	}
	return sleep(ctx, time.Second)
}

// udpFlow is one generator's UDP: from host to host at rate (bits/s of payload, on average where
// it is sent in bursts of burst datagrams back to back; 0: evenly).
type udpFlow struct {
	from, to, burst int
	rate            model.Rate
}

// iperfRate is the flow's rate as iperf3's -b takes it: bits/s, "/N" for bursts of N.
func (f udpFlow) iperfRate() string {
	b := strconv.FormatFloat(float64(f.rate), 'f', 0, 64)
	if f.burst > 0 {
		b += "/" + strconv.Itoa(f.burst)
	}
	return b
}

// String is the flow as the progress says it: "UDP h10→h1 at 64.13Mb/s of payload on average, in
// bursts of 400 packets".
func (f udpFlow) String() string {
	s := fmt.Sprintf("UDP h%d→h%d at %s of payload", f.from, f.to, f.rate)
	if f.burst > 0 {
		s += fmt.Sprintf(" on average, in bursts of %d packets", f.burst)
	}
	return s
}

// udpGen starts iperf3 sending flow at the bulk level, for d at most.
func (env *Env) udpGen(ctx context.Context, flow udpFlow, d time.Duration) error {
	from, to := flow.from, flow.to
	port := env.nextPort()
	srv, err := env.procs.start(fmt.Sprintf("iperf3 server on h%d", to), env.tb.Exec(to, env.atLevel(bulkLevel, false,
		"iperf3", "-s", "-1", "-p", strconv.Itoa(port))...))
	if err != nil {
		return err
	}
	if err := env.awaitTCP(ctx, srv, tcpState{host: to, state: netlink.TCP_LISTEN, port: port, n: 1}); err != nil {
		return err
	}
	cli, err := env.procs.start(fmt.Sprintf("iperf3 UDP h%d→h%d", from, to), env.tb.Exec(from, env.atLevel(bulkLevel, false,
		"iperf3", "-c", env.addr(to), "-p", strconv.Itoa(port), "-u", "-b", flow.iperfRate(), "-l", strconv.Itoa(genPayload),
		"-t", strconv.Itoa(int(d.Seconds())+1), "-i", "0")...))
	if err != nil {
		return err
	}
	// The control connection is up once iperf3 is about to send.
	if err := env.awaitTCP(ctx, cli, tcpState{host: from, state: netlink.TCP_ESTABLISHED, port: port, remote: true, n: 1}); err != nil {
		return err
	}
	env.logf("       %s flowing", flow)
	return nil
}

// detectArm freezes the last server mid-run on an idle network and measures how long the
// coordinator takes to declare it dead.
func (c *twoPCCoord) detectArm(ctx context.Context, env *Env, t twopc.Transport) error {
	defer env.procs.stopAll()
	name := string(t) + " failure"
	victim := len(c.lay.servers) - 1
	arm := results.Arm{Name: name, QJump: t == twopc.QJump, Bulk: "none",
		Description: fmt.Sprintf("%s, idle network; the server on h%d is frozen (SIGSTOP) after %s", t, c.lay.servers[victim], model.DurationText(c.plan.freezeAt))}
	if t == twopc.QJump {
		arm.Description += fmt.Sprintf("; failure timeout %s epochs of %s", c.timeouts[1], model.DurationText(c.epoch))
	}
	env.logf("[%s] %s", name, arm.Description)
	var stopNS int64
	freezeAt := func(servers []*proc, _ int) {
		if sleep(ctx, c.plan.freezeAt) == nil {
			stopNS = time.Now().UnixNano()
			_ = freeze(servers[victim])
		}
	}
	var sum twopc.Summary
	early := false // the last try declared the victim dead before its freeze
	for try := 1; try <= detectTries; try++ {
		stopNS = 0
		var err error
		if sum, _, err = c.run(ctx, env, t, name, c.plan.detectRun, freezeAt); err != nil {
			return err
		}
		var f twopc.FailureJSON
		if f, early = declaredBeforeFreeze(sum, victim, stopNS); !early {
			break
		}
		// The machine held a live server past the timeout: no detection time was measured, and
		// the coordinator left the server out from then on. Measure again.
		env.logf("       h%d declared dead %s before its freeze, while alive: %s (try %d of %d)", c.lay.servers[victim],
			model.DurationText(time.Duration(stopNS-f.DetectedNS)), f.Cause, try, detectTries)
		env.procs.stopAll() // this try's servers
	}
	env.res.Arms = append(env.res.Arms, arm)
	if f := failureOf(sum, victim); f != nil && stopNS != 0 && !early {
		env.record([]results.Row{
			{Arm: name, Tool: toolTwoPC, Metric: metricDetect, Sender: c.lay.servers[victim], SendNS: stopNS, LatencyNS: f.DetectedNS - stopNS},
			{Arm: name, Tool: toolTwoPC, Metric: metricDetectM, Sender: c.lay.servers[victim], SendNS: f.SentNS, LatencyNS: f.DetectNS}})
		env.logf("       declared dead %s after the freeze (%s after its unanswered %s): %s", model.DurationText(time.Duration(f.DetectedNS-stopNS)),
			model.DurationText(time.Duration(f.DetectNS)), f.Phase, f.Cause)
		return nil
	}
	env.record([]results.Row{{Arm: name, Tool: toolTwoPC, Metric: metricDetect, Sender: c.lay.servers[victim], SendNS: stopNS, Lost: true}})
	env.logf("       the frozen server was never declared dead")
	return nil
}

// detectTries is how many times the failure arm runs at most while the victim is declared dead
// before it is frozen: on a VM that stalls for longer than the qjump timeout (a few epochs), a
// live server can be, and then the run measured no detection at all.
const detectTries = 3

// failureOf is server's failure in sum (the coordinator declares a server dead once, and leaves
// it out from then on), or nil.
func failureOf(sum twopc.Summary, server int) *twopc.FailureJSON {
	for i := range sum.Failures {
		if sum.Failures[i].Server == server {
			return &sum.Failures[i]
		}
	}
	return nil
}

// declaredBeforeFreeze returns the victim's failure if the coordinator declared it dead before
// it was frozen at stopNS (0: never frozen).
func declaredBeforeFreeze(sum twopc.Summary, victim int, stopNS int64) (twopc.FailureJSON, bool) {
	if f := failureOf(sum, victim); f != nil && stopNS != 0 && f.DetectedNS < stopNS {
		return *f, true
	}
	return twopc.FailureJSON{}, false
}

// run starts the servers and the coordinator at the 2PC level, calls during (if any) with the
// servers and their port once the coordinator runs, and returns the coordinator's summary and one row per
// transaction.
func (c *twoPCCoord) run(ctx context.Context, env *Env, t twopc.Transport, arm string, d time.Duration, during func([]*proc, int)) (twopc.Summary, []results.Row, error) {
	port := env.nextPort()
	var servers []*proc
	var addrs []string
	for _, h := range c.lay.servers {
		args := []string{"2pc", "server", "--transport", string(t), "--listen", ":" + strconv.Itoa(port),
			"--for", (d + time.Minute).String(), "--out", env.rawPath(fmt.Sprintf("%s-2pc-server-h%d.json", safe(arm), h))}
		if t == twopc.UDP {
			args = append(args, c.timeouts...) // a server retransmits its replies as long as the coordinator its messages
		}
		p, err := env.startApp(ctx, "2pc server", h, twoPCLevel, args...)
		if err != nil {
			return twopc.Summary{}, nil, err
		}
		servers, addrs = append(servers, p), append(addrs, env.hostPort(h, port))
	}
	summary, txns := env.rawPath(safe(arm)+"-2pc-summary.json"), env.rawPath(safe(arm)+"-2pc-txns.csv")
	args := []string{testbed.Binary, "2pc", "coordinator", "--transport", string(t), "--servers", strings.Join(addrs, ","),
		"--for", d.String(), "--count", "10000000", "--summary", summary, "--out", txns}
	args = append(args, c.timeouts...)
	if t == twopc.QJump {
		args = append(args, "--epoch", c.epoch.String(), "--broadcast", broadcastAddr(env.tb.Names.HostAddr(1)).String()+":"+strconv.Itoa(port))
	}
	co, err := env.procs.start("2pc coordinator", env.tb.Exec(1, env.atLevel(twoPCLevel, true, args...)...))
	if err != nil {
		return twopc.Summary{}, nil, err
	}
	if during != nil {
		during(servers, port)
	}
	werr := co.wait(ctx)
	for _, s := range servers {
		thaw(s)
	}
	sum, err := readTwoPCSummary(summary)
	if err != nil {
		return sum, nil, fmt.Errorf("%w (coordinator: %v)", err, werr)
	}
	rows, err := readTxnCSV(txns, arm, c.paramOf(arm))
	return sum, rows, err
}

func (c *twoPCCoord) paramOf(arm string) float64 {
	_, r, ok := strings.Cut(arm, " r=")
	if !ok {
		return 0
	}
	v, _ := strconv.ParseFloat(r, 64)
	return v
}

// broadcastAddr is the testbed subnet's broadcast address (198.18.255.255 for the /16).
func broadcastAddr(a netip.Addr) netip.Addr {
	b := a.As4()
	for i := testbed.HostPrefixLen / 8; i < 4; i++ {
		b[i] = 0xff
	}
	return netip.AddrFrom4(b)
}

func safe(arm string) string { return strings.NewReplacer(" ", "-", "=", "").Replace(arm) }

func readTwoPCSummary(path string) (twopc.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return twopc.Summary{}, fmt.Errorf("2pc summary: %w", err)
	}
	defer f.Close()
	return twopc.ReadSummary(f)
}

// readTxnCSV reads the coordinator's per-transaction file (twopc.TxnCSVHeader).
func readTxnCSV(path, arm string, param float64) ([]results.Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("2pc transactions: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(twopc.TxnCSVHeader, ",") {
		return nil, fmt.Errorf("2pc transactions %s: not a transaction file (%v)", path, err)
	}
	var rows []results.Row
	for i, rec := range recs[1:] {
		id, e1 := strconv.ParseUint(rec[0], 10, 64)
		start, e2 := strconv.ParseInt(rec[1], 10, 64)
		end, e3 := strconv.ParseInt(rec[3], 10, 64)
		if e1 != nil || e2 != nil || e3 != nil {
			return nil, fmt.Errorf("2pc transactions %s: line %d is malformed", path, i+2)
		}
		// An abort is the protocol's outcome, not a lost sample: it is a transaction, and also
		// a row of its own series.
		row := results.Row{Arm: arm, Tool: toolTwoPC, Metric: metricTxn, Sender: 1, Seq: id, SendNS: start,
			LatencyNS: end - start, Param: param}
		rows = append(rows, row)
		if rec[4] != twopc.Committed {
			row.Metric = metricAbort
			rows = append(rows, row)
		}
	}
	return rows, nil
}
