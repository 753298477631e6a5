package experiment

import (
	"context"
	"math"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/apps/twopc"
	"github.com/qjump-net/qjump/internal/publish"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"

	"github.com/qjump-net/qjump/internal/testbed/tbtest"
)

// figP50 is a series' median.
var figP50 = figure{"p50", func(s results.Series) float64 { return s.P50US }}

// median is the p50 of a series that must have samples. The tests compare arms by their
// medians, which a stall of the machine moves least: one offset of 3.4 ms among an idle arm's
// 192 (a CI run; its p99 was 56 µs) made that arm's RMS 247 µs, a fifth of the contended arm's.
// The experiments' targets keep the paper's RMS.
func median(t *testing.T, r *Results, arm, tool, metric string) float64 {
	t.Helper()
	return figureOf(t, r, arm, tool, metric, figP50)
}

// figureOf is fig of a series that must have samples.
func figureOf(t *testing.T, r *Results, arm, tool, metric string, fig figure) float64 {
	t.Helper()
	s, ok := r.series(arm, tool, metric)
	if !ok {
		t.Fatalf("no %s %s samples in arm %s", tool, metric, arm)
	}
	return fig.of(s)
}

func TestPTPQuick(t *testing.T) {
	tbtest.RequireTools(t, "ptp4l")
	res, _ := runQuick(t, "ptp")
	for _, arm := range []string{"idle", "contended", "qjump"} {
		if s, _ := res.series(arm, toolPTP, metricOffset); s.Delivered() < 100 {
			t.Errorf("arm %s: %d offsets, want the plan's 192 (at least 100)", arm, s.Delivered())
		}
	}
	// Bulk through the switch ports delays Sync and Delay_Req by up to a full queue (12 ms at
	// 100 Mb/s): the contended offset error is milliseconds where QJump's is tens of µs (medians
	// 795-1,333 µs against 28-33 µs in docs/results/ptp-quick, ptp-run2 and ptp-realistic; idle
	// 2-4 µs). A 5× margin on the medians leaves room for noise.
	idle, cont, qj := median(t, res, "idle", toolPTP, metricOffset), median(t, res, "contended", toolPTP, metricOffset), median(t, res, "qjump", toolPTP, metricOffset)
	t.Logf("median offset idle %.0fµs, contended %.0fµs, QJump %.0fµs", idle, cont, qj)
	if cont < 5*qj || cont < 5*idle {
		t.Errorf("median offset idle %.0fµs, contended %.0fµs, QJump %.0fµs: bulk should inflate it and QJump undo it", idle, cont, qj)
	}
	if len(res.Targets) != 2 || !res.Targets[0].Evaluated || !res.Targets[1].Evaluated {
		t.Errorf("targets not evaluated: %+v", res.Targets)
	}
}

func TestTwoPCQuick(t *testing.T) {
	res, dir := runQuick(t, "2pc")
	top := twoPCMaxRatio(res)
	qIdle, ok1 := twoPCRate(res, twopc.QJump, 0)
	qTop, ok2 := twoPCRate(res, twopc.QJump, top)
	if !ok1 || !ok2 {
		t.Fatalf("qjump committed nothing: idle %v, at ratio %g %v", ok1, top, ok2)
	}
	// A full switch queue in front of the coordinator (12 ms, and tail drops that cost TCP a
	// 200 ms retransmission timeout) collapses tcp's rate; QJump's votes jump it. What remains of
	// qjump's rate depends on this machine's load (docs/reproducing.md), so the test asks only that
	// qjump commits several times what tcp does. A tcp that collapsed has a rate of 0, so the
	// comparison needs the tcp arm at that ratio to have run at all.
	if !slices.ContainsFunc(res.Arms, func(a results.Arm) bool { return a.Name == twoPCArm(twopc.TCP, top) }) {
		t.Fatalf("no arm %q: nothing to compare qjump's %.0f/s at ratio %g with", twoPCArm(twopc.TCP, top), qTop, top)
	}
	if tTop, _ := twoPCRate(res, twopc.TCP, top); qTop < 3*tTop {
		t.Errorf("at ratio %g qjump commits %.0f/s, tcp %.0f/s (qjump idle %.0f/s)", top, qTop, tTop, qIdle)
	}
	// The arms without interference are the sweep's points at ratio 0, and say so (results.json
	// writes their param 0); the machine-load and failure arms are no points of it.
	for _, a := range res.Arms {
		onAxis := a.Name == twoPCArm(twopc.Transport(strings.Fields(a.Name)[0]), a.Param)
		if a.HasParam != onAxis {
			t.Errorf("arm %q: HasParam %v, want %v", a.Name, a.HasParam, onAxis)
		}
	}
	if s, ok := res.series(twoPCArm(twopc.QJump, 0), toolTwoPC, metricTxn); !ok || !s.HasParam || s.Param != 0 {
		t.Errorf("qjump idle txn series: %+v, %v; want param 0", s, ok)
	}
	checkTwoPCDetection(t, res, dir)
}

// checkTwoPCDetection: tcp waits its 150 ms timeout, qjump a few epochs. Each timeout runs from
// the message the frozen server left unanswered, so neither verdict may come earlier than its
// timeout after that message (detect-msg). From the freeze (detect), which is what the paper
// compares, qjump must be 5× faster; but its timeout is chosen on this machine
// (chooseDetectEpochs), and a run whose idle transactions were slow gets a longer one, so where
// that timeout exceeds 20 ms (5× faster needs it under 30 ms, with a transaction to spare) the
// test asks for 2×. A CI run under a host stall had a 35 ms qjump verdict against tcp's 152 ms.
func checkTwoPCDetection(t *testing.T, res *Results, dir string) {
	t.Helper()
	tcp, okT := res.series("tcp failure", toolTwoPC, metricDetect)
	qj, okQ := res.series("qjump failure", toolTwoPC, metricDetect)
	tcpMsg, _ := res.series("tcp failure", toolTwoPC, metricDetectM)
	qjMsg, _ := res.series("qjump failure", toolTwoPC, metricDetectM)
	if !okT || !okQ {
		t.Fatalf("a frozen server was not declared dead: tcp %v, qjump %v", okT, okQ)
	}
	// The timeout the qjump coordinator ran with, as its summary says.
	sum, err := readTwoPCSummary(filepath.Join(dir, "raw", safe("qjump failure")+"-2pc-summary.json"))
	if err != nil || sum.ReplyWaitNS <= 0 {
		t.Fatalf("the qjump failure arm's summary: reply wait %d ns, %v", sum.ReplyWaitNS, err)
	}
	wait := time.Duration(sum.ReplyWaitNS)
	if tcpMsg.MaxUS < 150_000 {
		t.Errorf("tcp declared the server dead %.0fµs after its unanswered message, before its 150 ms timeout", tcpMsg.MaxUS)
	}
	if qjMsg.MaxUS < float64(wait.Microseconds()) {
		t.Errorf("qjump declared the server dead %.0fµs after its unanswered message, before its %s timeout", qjMsg.MaxUS, wait)
	}
	want := 5.0
	if wait > 20*time.Millisecond {
		want = 2
		t.Logf("qjump's failure timeout on this machine is %s (slow idle transactions): asking for %g× faster detection, not 5×", wait, want)
	}
	if qj.MaxUS*want > tcp.MaxUS {
		t.Errorf("detection from the freeze: tcp %.0fµs, qjump %.0fµs (timeout %s); want qjump %g× faster", tcp.MaxUS, qj.MaxUS, wait, want)
	}
}

// The burst generator leaves the paper's 25 ms pause after a burst of ratio × B frames at R.
func TestBurstGen(t *testing.T) {
	n, rate := burstGen(2, 100, 100e6)
	burst := 200 * 1514 * 8 / 100e6 // 24.2 ms at R
	if want := 200 * 1472 * 8 / (burst + 0.025); n != 200 || math.Abs(rate-want) > 1 {
		t.Errorf("ratio 2 of 100 packets: %d datagrams at %.0f b/s, want 200 at %.0f", n, rate, want)
	}
	if n, _ := burstGen(0.001, 100, 100e6); n != 1 {
		t.Errorf("a tiny ratio still sends one datagram per burst, got %d", n)
	}
	if got := broadcastAddr(netip.MustParseAddr("198.18.0.1")).String(); got != "198.18.255.255" {
		t.Errorf("broadcast of the testbed's /16: %s", got)
	}
}

func TestMemcachedSweepQuick(t *testing.T) {
	res, _ := runQuick(t, "memcached-sweep")
	pts := sweepPoints(res, false)
	if len(pts) != 4 || len(sweepPoints(res, true)) != 4 {
		t.Fatalf("the quick sweep has %d factors without bulk and %d with; want 4 each", len(pts), len(sweepPoints(res, true)))
	}
	// The paper's shape, which holds under noise: at f5 = 1 throughput is capped by the factor
	// (the model's cap is about 1,400 requests/s at 100 Mb/s, memcached reaches over 5,000 on
	// its own), and it grows with the factor; at line rate latency no longer waits for budget.
	first, last := pts[0], pts[len(pts)-1]
	if cap := sweepCap(res.Model, first.f5); first.PerSec > 1.25*cap {
		t.Errorf("f5=%g: %.0f requests/s above the model's cap %.0f", first.f5, first.PerSec, cap)
	}
	if last.PerSec < 2*first.PerSec || last.P50US*2 > first.P50US {
		t.Errorf("f5=%g → %g: throughput %.0f → %.0f/s, p50 %.0f → %.0fµs; want the factor to bind at the small end only",
			first.f5, last.f5, first.PerSec, last.PerSec, first.P50US, last.P50US)
	}
}

// advise's choice, run again, meets its target: the advice is confirmed by a second run. The
// target (1,000 requests/s with bulk) needs about f5 = 1 at 100 Mb/s and is far below what
// memcached reaches on its own, so noise cannot put it out of reach of every factor; but f5 = 1
// measures 950-1,050 requests/s with bulk, so whether f5 = 1 itself meets it is noise, and a
// smaller factor may be passed over only after its second run missed.
func TestAdviseQuick(t *testing.T) {
	tbtest.RequireTools(t, "iperf3", "memcached")
	c := testbed.DefaultConfig(0)
	c.Prefix = tbtest.Prefix(t)
	out := t.TempDir()
	checked, err := CheckAdvise(Options{Quick: true, OutDir: out, BulkCC: "cubic", Testbed: c}, AdviseTarget{Throughput: 1000})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	a, err := Advise(context.Background(), checked, testWriter{t})
	if err != nil {
		t.Fatalf("advise: %v", err)
	}
	if a.Chosen == nil || a.Confirm == nil || !a.Confirm.Met || a.Confirm.Factor != a.Chosen.Factor {
		t.Fatalf("advice %+v: want a factor confirmed by its second run", a)
	}
	missed := map[float64]bool{}
	for _, m := range a.Missed {
		missed[m.Factor] = !m.Met
	}
	for _, p := range a.Points {
		if p.Factor < a.Chosen.Factor && p.Met && !missed[p.Factor] {
			t.Errorf("f5=%g met the target, was not run again to a miss, but advise chose %g (missed reruns %+v)", p.Factor, a.Chosen.Factor, a.Missed)
		}
	}
	if a.Chosen.LevelRateBPS <= 0 || a.Chosen.CapPerSec <= 0 || a.Chosen.Factor <= 2 != a.Chosen.Guaranteed {
		t.Errorf("model figures at the choice: %+v (the bound is guaranteed exactly while f ≤ m = 2)", a.Chosen)
	}
	// The runs the advice names are where it says, published, and nothing is left staged.
	for _, dir := range append([]string{a.Sweep}, a.Reruns...) {
		if got := results.ExperimentIn(dir); filepath.Dir(dir) != out || got != "memcached-sweep" {
			t.Errorf("the advice names %s, holding a run of %q; want a memcached-sweep run in %s", dir, got, out)
		}
	}
	if staged := publish.EntriesWithPrefix(out, publish.StagingPrefix); len(staged) != 0 {
		t.Errorf("left staged: %v", staged)
	}
}

func TestMixedQuick(t *testing.T) {
	tbtest.RequireTools(t, "ptp4l")
	res, _ := runQuick(t, "mixed")
	for _, ph := range mixedPhases {
		for _, k := range []struct{ tool, metric string }{{toolPTP, metricOffset}, {toolMemcached, metricRequest}} {
			if s, ok := res.series(ph, k.tool, k.metric); !ok || s.Delivered() < 100 {
				t.Errorf("phase %s: %d %s samples", ph, s.Delivered(), k.tool)
			}
		}
	}
	// Both applications suffer from the bulk traffic and QJump undoes it: the contended phase's
	// median is several times both the alone and the QJump phase's (in docs/results/mixed-quick
	// 4,178 µs against 5 and 20 µs for PTP, 9,167 µs against 72 and 112 µs for memcached; 5×
	// here, a margin for noise).
	for _, k := range []struct{ tool, metric string }{{toolPTP, metricOffset}, {toolMemcached, metricRequest}} {
		alone, cont, qj := median(t, res, "alone", k.tool, k.metric), median(t, res, "contended", k.tool, k.metric), median(t, res, "qjump", k.tool, k.metric)
		t.Logf("%s median %s: alone %.0fµs, contended %.0fµs, QJump %.0fµs", k.tool, k.metric, alone, cont, qj)
		if cont < 5*alone || cont < 5*qj {
			t.Errorf("%s median %s: alone %.0fµs, contended %.0fµs, QJump %.0fµs", k.tool, k.metric, alone, cont, qj)
		}
	}
}

func TestBarrierQuick(t *testing.T) {
	res, _ := runQuick(t, "barrier")
	if s, _ := res.series("idle", toolBarrier, metricRound); s.Delivered() < 4*1000 {
		t.Errorf("idle: %d rounds over 4 participants, want the plan's 1,500 each", s.Delivered())
	}
	// A full switch queue in front of two participants (B frames, 12.3 ms at 100 Mb/s, two bulk
	// senders into each) delays every contended round by about its depth; at level 7 the barrier
	// jumps it. Medians, which the machine's own stalls move least. The claim is about the queue,
	// so it is measured in the queue's own unit: the contended arm must have built at least half a
	// queue, and QJump must take at least half a queue off the round. A ratio of the two medians
	// would also count what the machine adds to QJump's arm, which on a busy host was up to 2.5 ms
	// at p50 while the queue stayed 10.3-10.8 ms (docs/reproducing.md, Fig. 3c).
	cont, qj := median(t, res, "contended", toolBarrier, metricRound), median(t, res, "qjump", toolBarrier, metricRound)
	halfQueue := float64(res.Testbed.Buffer) * wireFrameUS(res) / 2
	if cont < halfQueue {
		t.Errorf("barrier p50 contended %.0fµs: under half a full switch queue (%.0fµs), the contended arm built no queue to jump", cont, halfQueue)
	}
	if cont-qj < halfQueue {
		t.Errorf("barrier p50: contended %.0fµs, QJump %.0fµs; want QJump at least half a full switch queue (%.0fµs) lower", cont, qj, halfQueue)
	}
	if len(res.Targets) != 3 {
		t.Errorf("targets: %+v", res.Targets)
	}
}
