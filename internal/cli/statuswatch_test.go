package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

func TestStatusWatchOptions(t *testing.T) {
	got := parseOptions(t, newStatusCommand, "--watch", "--interval", "250ms", "--count", "3", "--json")
	if !got.watch || got.interval != 250*time.Millisecond || got.count != 3 || !got.json {
		t.Errorf("--watch --interval 250ms --count 3 --json parsed as %+v", got)
	}
	if got := parseOptions(t, newStatusCommand, "--watch"); got.interval != time.Second || got.count != 0 {
		t.Errorf("--watch alone: interval %s, count %d; want 1s until Ctrl-C", got.interval, got.count)
	}
}

// TestRatesOf: rates are the counters' differences over the time between the readings; a counter
// that went down (down and up again between them) gives no rate.
func TestRatesOf(t *testing.T) {
	before := dataplane.Counters{SentPackets: 100, SentBytes: 150000, DroppedPackets: 10, OversizePackets: 1, ShapedPackets: 7}
	after := dataplane.Counters{SentPackets: 300, SentBytes: 450000, DroppedPackets: 30, OversizePackets: 3, DemotedPackets: 4, ShapedPackets: 7}
	r, ok := ratesOf(before, after, 2*time.Second)
	want := LevelRates{SentBitsPerSecond: 1.2e6, SentPacketsPerSecond: 100, DroppedPacketsPerSecond: 11, DemotedPacketsPerSecond: 2}
	if !ok || r != want {
		t.Errorf("rates %+v (ok %v), want %+v", r, ok, want)
	}
	if _, ok := ratesOf(after, before, time.Second); ok {
		t.Errorf("counters that went down gave a rate")
	}
}

// TestWatchFrame: a device seen in both readings gets rates for its configured levels (and any
// other level that counted something); one seen for the first time, or whose counters started
// over, says so and has none.
func TestWatchFrame(t *testing.T) {
	c := config.Default()
	c.Model.Hosts, c.Model.Rate = 12, model.Rate(10e9)
	c.Model.Factors = model.Factors{7: model.Limited(1), 0: model.Unlimited()}
	c, err := c.ResolvePacket(1500)
	if err != nil {
		t.Fatal(err)
	}
	eth0 := dataplane.Status{Device: "eth0", Config: c, Generation: 1}
	eth0.Levels[7] = dataplane.Counters{SentPackets: 10, SentBytes: 1000}
	later := eth0
	later.Levels[7] = dataplane.Counters{SentPackets: 60, SentBytes: 6000, DroppedPackets: 5}
	eth1 := dataplane.Status{Device: "eth1", Config: c, Generation: 1}
	f := newWatchFrame([]dataplane.Status{eth0}, []dataplane.Status{later, eth1}, 500*time.Millisecond, time.Unix(0, 0).UTC())
	if len(f.Devices) != 2 {
		t.Fatalf("%d devices, want eth0 and eth1", len(f.Devices))
	}
	d := f.Devices[0]
	if d.Since != "" || len(d.Levels) != 2 || d.Levels[0].Level != 7 || d.Levels[1].Level != 0 {
		t.Fatalf("eth0: %+v, want rates for levels 7 and 0", d)
	}
	if l := d.Levels[0]; l.LevelRates == nil || l.SentPacketsPerSecond != 100 || l.SentBitsPerSecond != 80000 ||
		l.DroppedPacketsPerSecond != 10 || l.RateBps == nil || *l.RateBps != float64(c.Model.LevelRate(model.Limited(1))) {
		t.Errorf("eth0 level 7: %+v, want 100 packets, 80 kb/s, 10 drops a second and the level's rate as limit", l)
	}
	if l := d.Levels[0]; l.TargetRateBps != nil {
		t.Errorf("eth0 level 7, factor given as one: target rate %v, want none", *l.TargetRateBps)
	}
	// A level solved from a target rate shows it, as status --json does: the watch left it out.
	solved := later
	solved.Config.SolvedRates = map[model.Level]model.Rate{7: 1e6}
	if g := newWatchFrame([]dataplane.Status{eth0}, []dataplane.Status{solved}, time.Second, time.Unix(0, 0)); g.Devices[0].Levels[0].TargetRateBps == nil ||
		*g.Devices[0].Levels[0].TargetRateBps != 1e6 {
		t.Errorf("level 7 solved from 1Mb/s: target rate %v, want 1e6", g.Devices[0].Levels[0].TargetRateBps)
	}
	if d := f.Devices[1]; d.Since != "first reading" || d.Levels[0].LevelRates != nil {
		t.Errorf("eth1, new: since %q, rates %v; want first reading and no rates", d.Since, d.Levels[0].LevelRates)
	}
	reset := newWatchFrame([]dataplane.Status{later}, []dataplane.Status{eth0}, time.Second, time.Unix(0, 0))
	if reset.Devices[0].Since != "counters started over" {
		t.Errorf("counters that went down: since %q, want counters started over", reset.Devices[0].Since)
	}
	// Down, up and reloaded twice between two readings, with more traffic than before: only the
	// generation shows it.
	again := later
	again.Generation, again.Levels[7].SentPackets, again.Levels[7].SentBytes = 0, 100, 10000
	if g := newWatchFrame([]dataplane.Status{later}, []dataplane.Status{again}, time.Second, time.Unix(0, 0)); g.Devices[0].Since != "counters started over" {
		t.Errorf("a generation that went down: since %q, want counters started over", g.Devices[0].Since)
	}
	gone := newWatchFrame([]dataplane.Status{later, eth1}, []dataplane.Status{eth1}, time.Second, time.Unix(0, 0))
	if len(gone.Devices) != 2 || gone.Devices[1].Device != "eth0" || gone.Devices[1].Since != "no longer up" {
		t.Errorf("eth0 gone: %+v, want it said no longer up", gone.Devices)
	}
	var out bytes.Buffer
	if err := printWatchFrame(&out, f, ""); err != nil {
		t.Fatal(err)
	}
	first := out.String()
	for _, want := range []string{"eth0 at 00:00:00.000: police mode, E=29.53µs, generation 1; per second over the last 500ms",
		"LEVEL", "80kb/s", "eth1", "no rates yet: first reading"} {
		if !strings.Contains(first, want) {
			t.Errorf("printed frame lacks %q:\n%s", want, first)
		}
	}
	out.Reset()
	if err := printWatchFrame(&out, newWatchFrame(nil, nil, time.Second, time.Unix(0, 0).UTC()), "eth0"); err != nil ||
		out.String() != "00:00:00.000: qjump is not up on eth0\n" {
		t.Errorf("a watched device not up: %q (%v)", out.String(), err)
	}
	if !strings.Contains(first, "NOT ATTACHED") {
		t.Errorf("devices with Attached false (as in this test) not said to be so:\n%s", first)
	}
}

// TestPerSecond: rates under 10 keep two significant digits, so that a few drops over a long
// interval do not read as none.
func TestPerSecond(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 0.3: "0.3", 0.0333: "0.033", 2.5: "2.5", 9.94: "9.9", 10: "10", 63.4: "63", 1e6: "1000000"} {
		if got := perSecond(x); got != want {
			t.Errorf("perSecond(%v) = %q, want %q", x, got, want)
		}
	}
}

// TestStatusWatchSeesTraffic: on a real interface, `status --watch --json` reports a ping at level
// 7 as it happens: in every interval some of its packets, a whole number of them, none dropped.
func TestStatusWatchSeesTraffic(t *testing.T) {
	ns := newHost(t)
	if _, errOut, code := qjumpIn(t, ns, nil, "up", "--dev", "eth0", "--hosts", "2", "--rate", "100M", "--factors", "7=1,0=unlimited"); code != 0 {
		t.Fatalf("qjump up: exit %d: %s", code, errOut)
	}
	peer := peerAddr(t, ns)
	ping := exec.Command("ip", "netns", "exec", ns, testutil.QjumpBinary(t), "run", "--level", "7", "--",
		"ping", "-q", "-i", "0.02", "-c", "150", "-w", "10", peer)
	if err := ping.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ping.Process.Kill(); _ = ping.Wait() }()
	time.Sleep(300 * time.Millisecond) // the ping under way before the first reading
	out, errOut, code := qjumpIn(t, ns, nil, "status", "--watch", "--interval", "500ms", "--count", "3", "--json")
	if code != 0 {
		t.Fatalf("status --watch: exit %d: %s", code, errOut)
	}
	frames := 0
	var pps, intervals []float64
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var f watchFrame
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("line %d is not a frame: %v: %s", frames+1, err, sc.Text())
		}
		frames++
		if len(f.Devices) != 1 || f.Devices[0].Since != "" || f.IntervalS < 0.4 || f.IntervalS > 1.5 {
			t.Fatalf("frame %d: %+v, want eth0 with rates over about 500ms", frames, f)
		}
		top := f.Devices[0].Levels[0]
		if top.Level != 7 || top.RateBps == nil || top.LevelRates == nil || top.DroppedPacketsPerSecond != 0 {
			t.Errorf("frame %d, level 7: %+v, want a limit and no drops", frames, top)
		}
		pps, intervals = append(pps, top.SentPacketsPerSecond), append(intervals, f.IntervalS)
	}
	if frames != 3 {
		t.Fatalf("%d frames, want 3 (--count 3):\n%s", frames, out)
	}
	// ping -i 0.02 sends at most 50 echo requests a second (fewer where the kernel's timers round
	// its sleeps up); an interval counts whole packets.
	for i, r := range pps {
		n := r * intervals[i]
		if r <= 0 || r > 55 || math.Abs(n-math.Round(n)) > 1e-6 {
			t.Errorf("frame %d: level 7 sent %.2f packets a second (%.4f in the interval), want some, whole ones, at most ping's 50 a second", i+1, r, n)
		}
	}
}

// peerAddr is the address of the other end of ns's eth0 (newHost's pair: .1 here, .2 there).
func peerAddr(t *testing.T, ns string) string {
	t.Helper()
	out, err := exec.Command("ip", "-n", ns, "-4", "-o", "addr", "show", "dev", "eth0").Output()
	if err != nil {
		t.Fatal(err)
	}
	var addr string
	for _, f := range strings.Fields(string(out)) {
		if strings.Count(f, ".") == 3 && strings.Contains(f, "/") {
			addr = f[:strings.Index(f, "/")]
		}
	}
	if !strings.HasSuffix(addr, ".1") {
		t.Fatalf("eth0 of %s has address %q, want newHost's .1", ns, addr)
	}
	return fmt.Sprintf("%s.2", addr[:len(addr)-2])
}
