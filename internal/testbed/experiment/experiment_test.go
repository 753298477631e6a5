package experiment

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testbed/tbtest"
	"github.com/qjump-net/qjump/internal/testutil"
)

// The fields docs/testbed.md promises in results.json.
var (
	resultFields = []string{"experiment", "title", "quick", "started", "duration_s", "build", "testbed", "bulk_cc",
		"model", "qjump", "arms", "series", "targets", "files"}
	modelFields  = []string{"hosts", "rate_bps", "packet_bytes", "epsilon_ns", "mesochronous", "epoch_ns", "max_frame_time_ns"}
	seriesFields = []string{"arm", "tool", "metric", "samples", "lost", "mean_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us"}
	targetFields = []string{"name", "criterion", "value", "limit", "unit", "evaluated", "met"}
	armFields    = []string{"name", "description", "qjump", "bulk"}
)

// runQuick runs an experiment's quick form on the default testbed, whose hosts behave like
// servers' NICs (issue 8: the experiments are proven under the conditions users have).
func runQuick(t *testing.T, name string) (*Results, string) {
	t.Helper()
	tbtest.RequireTools(t, "iperf3", "ping", "memcached")
	c := testbed.DefaultConfig(0)
	c.Prefix, c.Rate = tbtest.Prefix(t), 0 // the experiment's own rate, as testbed run without --rate
	dir := t.TempDir()
	checked, err := Check(name, Options{Quick: true, OutDir: dir, BulkCC: "cubic", Testbed: c})
	if err != nil {
		t.Fatalf("check %s --quick: %v", name, err)
	}
	res, err := Run(context.Background(), checked, testWriter{t})
	if err != nil {
		t.Fatalf("run %s --quick: %v", name, err)
	}
	checkFiles(t, dir, res)
	return res, dir
}

// Run runs only what Check checked: a run made otherwise (its zero value) is refused before
// anything is built.
func TestRunRefusesAnUncheckedRun(t *testing.T) {
	_, err := Run(context.Background(), CheckedRun{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "Check") {
		t.Fatalf("Run of a zero CheckedRun: %v, want a refusal naming Check", err)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p[:len(p)-1])); return len(p), nil }

func checkFiles(t *testing.T, dir string, res *Results) {
	t.Helper()
	// up_args is the command that ran, the testbed's shape mode in it (not police mode's defaults).
	if up := strings.Join(res.QJump.UpArgs, " "); up != "" && !strings.HasPrefix(up, "--dev eth0 --mode shape --mark ") {
		t.Errorf("up_args %q lacks the testbed's own --dev, --mode shape and --mark", up)
	}
	for _, f := range res.Files {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("output %s missing or empty: %v", f, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	hasFields(t, "results", doc, resultFields)
	hasFields(t, "model", doc["model"].(map[string]any), modelFields)
	for _, key := range []struct {
		name   string
		fields []string
	}{{"series", seriesFields}, {"targets", targetFields}, {"arms", armFields}} {
		list, _ := doc[key.name].([]any)
		if len(list) == 0 {
			t.Errorf("results.json has no %s", key.name)
		}
		for _, item := range list {
			hasFields(t, key.name, item.(map[string]any), key.fields)
		}
	}
}

func hasFields(t *testing.T, what string, m map[string]any, fields []string) {
	t.Helper()
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			t.Errorf("%s lacks field %q", what, f)
		}
	}
}

func p99(t *testing.T, r *Results, arm, tool, metric string) float64 {
	t.Helper()
	s, ok := r.series(arm, tool, metric)
	if !ok {
		t.Fatalf("no %s %s samples in arm %s", tool, metric, arm)
	}
	return s.P99US
}

// assertJump checks the shape every experiment has: bulk traffic delays tool's metric (the
// contended arm's p99 is at least slower× the idle one), and QJump undoes it (the qjump arm's p99
// is at most 1/faster of the contended one).
func assertJump(t *testing.T, r *Results, contended, tool, metric string, slower, faster float64) {
	t.Helper()
	idle, cont := p99(t, r, "idle", tool, metric), p99(t, r, contended, tool, metric)
	if cont < slower*idle {
		t.Errorf("bulk should delay %s: contended p99 %.0fµs vs idle %.0fµs", tool, cont, idle)
	}
	if qj := p99(t, r, "qjump", tool, metric); qj*faster > cont {
		t.Errorf("QJump should cut %s's tail: p99 %.0fµs vs contended %.0fµs", tool, qj, cont)
	}
}

func TestPingIperfQuick(t *testing.T) {
	res, dir := runQuick(t, "ping-iperf")
	assertJump(t, res, "switch-queue", "probe", "oneway", 10, 5)
	// Every idle probe has its kernel stamps: a missing one would make its network latency lost.
	if s, _ := res.series("idle", "probe", "network"); s.Samples == 0 || s.Lost > 0 {
		t.Errorf("idle probes without kernel stamps: %d of %d", s.Lost, s.Samples)
	}
	// report redraws the same figures from the files.
	again, err := Report(dir)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	if len(again.Series) != len(res.Series) || again.Series[0] != res.Series[0] {
		t.Errorf("report gave different series: %+v vs %+v", again.Series[0], res.Series[0])
	}
}

func TestMemcachedQuick(t *testing.T) {
	res, _ := runQuick(t, "memcached")
	assertJump(t, res, "contended", "memcached", "request", 3, 2)
}

// stallOnlyMisses describes the missed targets of a run if every one of them is missed by
// emulation stalls alone (results.Target.MissedByStallsOnly), and is empty otherwise.
func stallOnlyMisses(res *Results) string {
	var missed []string
	for _, target := range res.Targets {
		switch {
		case target.Evaluated && target.Met:
		case target.MissedByStallsOnly():
			missed = append(missed, fmt.Sprintf("%s %.0f against %.0f %s: %v", target.Name, target.Value, target.Limit, target.Unit, target.Worst))
		default:
			return ""
		}
	}
	return strings.Join(missed, "; ")
}

func TestFanInQuick(t *testing.T) {
	res, _ := runQuick(t, "fan-in")
	// The targets take the machine's measured stalls out of each probe (docs/testbed.md,
	// "Machine stalls"); a stall the monitor could not see (shorter than its threshold, or
	// begun up to a tick before it was due) can still hold a probe past the bound however the
	// queues behave, and its evidence says so. Such a run cannot check the strict form, so it is
	// run once more; a miss the queues explain, a lost probe or a second stall fails.
	if stalls := stallOnlyMisses(res); stalls != "" {
		t.Logf("strict targets missed by emulation stalls alone, running the quick sweep once more: %s", stalls)
		res, _ = runQuick(t, "fan-in")
	}
	if _, ok := res.series("noise", "probe", "oneway"); !ok {
		t.Fatal("the idle noise floor was not measured")
	}
	if !res.Targets[0].Evaluated {
		t.Errorf("region A was not evaluated: %+v", res.Targets[0])
	}
	// The model's guarantee is recorded for exactly the arms within m, and the regions have their
	// shape. Below the bound
	// (f7 = 0.5) a probe's median latency is a fraction of a frame's queue; at f7 = 4 (region C)
	// queues are permanent and the median is the full switch buffer (about 80 µs against 11 ms in
	// docs/results/fan-in): a 5× margin.
	const m = 2 // the testbed's mesochronous compensation
	for _, a := range res.Arms {
		if !a.QJump {
			continue
		}
		if a.BoundGuaranteed != (a.Param <= m) || a.BoundGuaranteed && a.BoundUS <= 0 {
			t.Errorf("arm %s: bound %.0fµs guaranteed %v; the model guarantees it exactly while f7 ≤ %d", a.Name, a.BoundUS, a.BoundGuaranteed, m)
		}
	}
	// The strict form (issue 9): on a 2-core machine with nothing else running it held in 10 of 10
	// consecutive quick runs (docs/testbed.md, "What this machine emulates faithfully"), with the noise floor's
	// maximum at about 1/100 of the f7 = 1 bound.
	for _, target := range res.Targets {
		if !target.Evaluated || !target.Met {
			t.Errorf("target %s: %s: %.0f against %.0f %s (evaluated %v, %d over, %s); worst: %v", target.Name, target.Criterion,
				target.Value, target.Limit, target.Unit, target.Evaluated, target.Over, target.Note, target.Worst)
		}
	}
	below, ok1 := res.series(fanInArm(0.5), "probe", "network")
	above, ok2 := res.series(fanInArm(4), "probe", "network")
	if !ok1 || !ok2 {
		t.Fatalf("the quick sweep lacks f7 = 0.5 or 4")
	}
	if above.P50US < 5*below.P50US {
		t.Errorf("network p50 %.0fµs at f7 = 4 is not ≥ 5× the %.0fµs at f7 = 0.5: no permanent queue beyond the bound",
			above.P50US, below.P50US)
	}
}

// startQuickRun starts a real `qjump testbed run EXPERIMENT --quick` on a testbed of its own
// prefix, in a process group of its own (so that a failing test can kill all of it), and returns
// it with the prefix and its progress (stderr), for the tests that stop a run midway.
func startQuickRun(t *testing.T, experiment, out string) (*exec.Cmd, string, io.ReadCloser) {
	t.Helper()
	bin := tbtest.RequireTools(t, "iperf3", "ping")
	prefix := tbtest.Prefix(t)
	cmd := exec.Command(bin, "testbed", "run", experiment, "--quick", "--prefix", prefix, "--out", out)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	progress, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, prefix, progress
}

// TestSIGTERMMidRun stops a real `qjump testbed run` while probes and bulk traffic flow with
// QJump on every host and checks that it removed everything: namespaces, links, state,
// processes, pins, the probes' cgroups, its staging directory; and that the earlier run in its
// --out is as it was. fan-in turns QJump on for its third arm, seconds into a quick run
// (ping-iperf does only in its last): stopped before, the run would have no pins to leave.
func TestSIGTERMMidRun(t *testing.T) {
	out := t.TempDir()
	earlier := writeEarlierRun(t, out, "fan-in")
	cgroups := tbtest.RunCgroups()
	cmd, prefix, progress := startQuickRun(t, "fan-in", out)
	// Interrupt once bulk traffic flows with QJump up: the run says both in its progress on stderr.
	flowing := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(progress)
		up, found := false, false
		for !found && sc.Scan() {
			up = up || strings.Contains(sc.Text(), "qjump up on every host")
			found = up && strings.Contains(sc.Text(), "flowing")
		}
		flowing <- found
		_, _ = io.Copy(io.Discard, progress)
	}()
	done := make(chan error, 1)
	select {
	case ok := <-flowing:
		if !ok {
			t.Fatal("run ended before any bulk traffic flowed with QJump on")
		}
	case <-time.After(90 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatal("no bulk traffic flowed with QJump on within 90s")
	}
	// The probe clients, each in a cgroup of its `qjump run`, start a second after the bulk.
	if !waitForProbeClients(4, 10*time.Second) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatal("the 4 probe clients of the arm did not start within 10s of the bulk")
	}
	nss := tbtest.NetnsOf(t, prefix)
	if len(nss.Inodes) < 5 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("testbed is not up: %v", nss.Inodes)
	}
	// The leftover-pin check below is only worth something if there are pins to leave: the
	// dataplane's, one directory per host (every namespace but the switch's).
	pinned := 0
	for key := range nss.Cookies {
		if _, err := os.Stat(filepath.Join(tbtest.PinRoot, key)); err == nil {
			pinned++
		}
	}
	if pinned != len(nss.Inodes)-1 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("want dataplane pins under %s for the %d hosts' namespaces, found %d", tbtest.PinRoot, len(nss.Inodes)-1, pinned)
	}
	go func() { done <- cmd.Wait() }()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		// 130, as every verb stopped by a signal exits (docs/cli.md), not 1 as a failure
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Errorf("an interrupted run exited %v, want exit status 130", err)
		}
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatal("run did not exit within 30s of SIGTERM")
	}
	tbtest.AssertNothingLeft(t, prefix, nss)
	if left := tbtest.NewCgroups(cgroups); len(left) > 0 {
		t.Errorf("cgroups of the probes' qjump run left behind: %v", left)
	}
	if now := testutil.DirContents(t, out); !maps.Equal(now, earlier) {
		t.Errorf("the stopped run changed the earlier run in its --out:\nbefore %v\nafter  %v", earlier, now)
	}
}

// writeEarlierRun writes a small run of experiment into dir, as a complete earlier run left it,
// and returns dir's contents.
func writeEarlierRun(t *testing.T, dir, experiment string) map[string]string {
	t.Helper()
	files := map[string]string{
		"results.json": `{"experiment": "` + experiment + `", "files": ["samples.csv", "results.json", "summary.md", "stalls.csv"]}`,
		"samples.csv":  "the earlier run's samples", "summary.md": "the earlier run's summary",
		"stalls.csv": "the earlier run's stalls", "raw/noise-arrivals.csv": "the earlier run's arrivals",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return testutil.DirContents(t, dir)
}

// waitForProbeClients waits until n `qjump probe client` processes run, or timeout passes.
func waitForProbeClients(n int, timeout time.Duration) bool {
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		found := 0
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range cmdlines {
			b, _ := os.ReadFile(p)
			if args := strings.Split(string(b), "\x00"); len(args) > 2 && args[1] == "probe" && args[2] == "client" {
				found++
			}
		}
		if found >= n {
			return true
		}
	}
	return false
}

// TestClosedOutputStopsRun closes the pipe a real `qjump testbed run` writes its progress to, as
// `qjump testbed run ... | head` does, and checks that the run stopped as on Ctrl-C and removed
// everything: SIGPIPE used to kill it at its next line, with its testbed up.
func TestClosedOutputStopsRun(t *testing.T) {
	cmd, prefix, progress := startQuickRun(t, "ping-iperf", t.TempDir())
	// Read up to the line that says the first arm started (the testbed is up), then go away.
	sc := bufio.NewScanner(progress)
	for sc.Scan() && !strings.Contains(sc.Text(), "[1/") {
	}
	nss := tbtest.NetnsOf(t, prefix)
	if len(nss.Inodes) < 5 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("testbed is not up: %v", nss.Inodes)
	}
	_ = progress.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Errorf("a run whose output was closed exited %v, want exit status 130 (stopped, testbed removed)", err)
		}
	case <-time.After(60 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatal("run did not stop within 60s of its output closing")
	}
	tbtest.AssertNothingLeft(t, prefix, nss)
}

// The fan-in bound is the model's own D7 where the model guarantees it, and its continuation past m.
func TestFanInBound(t *testing.T) {
	m := ModelInfo{Hosts: 5, RateBPS: 100e6, PacketBytes: int64(probePacket), EpsilonNS: 50_000, Mesochronous: 2}
	for _, tc := range []struct {
		f7         float64
		want       time.Duration
		guaranteed bool
	}{
		// n·P·8·f7/R + ε with P = 1538 wire bytes (a full frame of the hosts' 1500-byte MTU); below
		// f7 = 1 the bound of one whole probe frame per host per epoch, f7 = 1's
		{0.5, 615_200*time.Nanosecond + 50*time.Microsecond, true},
		{1, 615_200*time.Nanosecond + 50*time.Microsecond, true},
		{2, 1_230_400*time.Nanosecond + 50*time.Microsecond, true},
		{4, 2_460_800*time.Nanosecond + 50*time.Microsecond, false},
	} {
		got, g := fanInBound(m, tc.f7)
		if got != tc.want || g != tc.guaranteed {
			t.Errorf("f7=%g: bound %v (guaranteed %v), want %v (%v)", tc.f7, got, g, tc.want, tc.guaranteed)
		}
	}
}

// TestLevelSevenPacing: ping-iperf's probe and ping, side by side at level 7, stay within two
// thirds of the level's rate at f7 = 1, whatever R: 252 wire bytes per send against T7 = P·8/E.
func TestLevelSevenPacing(t *testing.T) {
	for _, rate := range []model.Rate{10e6, 100e6} {
		c := testbed.DefaultConfig(4)
		c.Rate = rate
		env := &Env{opts: Options{Testbed: c}, res: &Results{Testbed: c}}
		env.setEpsilon(30 * time.Microsecond)
		gap := levelSevenPacing(env)
		t7 := env.modelConfig(model.Factors{7: model.Limited(1)}).LevelRate(model.Limited(1))
		used := float64((130+122)*8) / gap.Seconds()
		if used > float64(t7)*2/3*1.0001 || used < float64(t7)*0.6 {
			t.Errorf("R=%s: a send every %v uses %.0f b/s of level 7's %s", rate, gap, used, t7)
		}
	}
}
