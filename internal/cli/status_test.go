package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

func TestStatusOptions(t *testing.T) {
	if got := parseOptions(t, newStatusCommand); got.dev != "" || got.json {
		t.Errorf("no flags parsed as %+v, want every device as tables", got)
	}
	if got := parseOptions(t, newStatusCommand, "--dev", "eth1", "--json"); got.dev != "eth1" || !got.json {
		t.Errorf("--dev eth1 --json parsed as %+v", got)
	}
}

// A level that is not configured has no rate and no budget: null, never a rate of 0 b/s.
func TestStatusJSONUnconfiguredLevelIsNull(t *testing.T) {
	c := config.Default()
	c.Model.Hosts, c.Model.Rate = 12, model.Rate(10e9)
	c.Model.Factors = model.Factors{7: model.Limited(1), 0: model.Unlimited()}
	b, err := json.Marshal(newStatusJSON([]dataplane.Status{{Device: "eth0", Config: c}}, nil, func(string) (int, error) { return 1500, nil }))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Devices []struct {
			Levels []map[string]any `json:"levels"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	levels := got.Devices[0].Levels // highest first
	for _, l := range levels {
		level, configured := int(l["level"].(float64)), l["configured"].(bool)
		rate, hasRate := l["rate_bps"]
		switch {
		case !hasRate:
			t.Errorf("level %d has no rate_bps key", level)
		case configured && !(rate.(float64) > 0):
			t.Errorf("level %d (configured): rate_bps %v", level, rate)
		case !configured && rate != nil:
			t.Errorf("level %d (not configured): rate_bps %v, want null", level, rate)
		}
	}
	if levels[0]["configured"] != true || levels[3]["configured"] != false || levels[7]["configured"] != true {
		t.Errorf("levels 7, 4, 0 configured: %v %v %v", levels[0]["configured"], levels[3]["configured"], levels[7]["configured"])
	}
}

// status warns about a device whose MTU has changed under the configuration it runs: a P that
// was auto and is no longer one full frame, and budgets that a full frame no longer fits.
func TestStatusWarnsWhenTheDeviceChanged(t *testing.T) {
	running := func(auto bool, mark config.Mark) dataplane.Status {
		c := config.Default()
		c.Model.Hosts, c.Model.Rate, c.Mark = 12, model.Rate(10e9), mark
		c, err := c.ResolvePacket(1500)
		if err != nil {
			t.Fatal(err)
		}
		c.AutoPacket = auto
		return dataplane.Status{Device: "eth0", Attached: true, Config: c}
	}
	mtu := func(n int) mtuOf { return func(string) (int, error) { return n, nil } }
	for _, tc := range []struct {
		name string
		st   dataplane.Status
		mtu  int
		says []string
	}{
		{"auto P, MTU unchanged", running(true, config.MarkDSCP), 1500, nil},
		{"auto P with PCP marking, MTU unchanged", running(true, config.MarkPCP), 1500, nil},
		{"auto P, MTU raised", running(true, config.MarkDSCP), 9000, []string{"--packet auto", "level 7: budget 1538B"}},
		{"P given, MTU raised", running(false, config.MarkDSCP), 9000, []string{"level 7: budget 1538B"}},
		{"auto P, MTU lowered", running(true, config.MarkDSCP), 1400, []string{"full frame is 1438B now (MTU 1400)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := statusWarnings(tc.st, mtu(tc.mtu))
			if len(got) != len(tc.says) {
				t.Fatalf("warnings %q, want %d saying %q", got, len(tc.says), tc.says)
			}
			for i, s := range tc.says {
				if !strings.Contains(got[i], s) {
					t.Errorf("warning %d: %q, want it to say %q", i, got[i], s)
				}
			}
		})
	}
	gone := running(true, config.MarkDSCP)
	gone.Attached = false
	if got := statusWarnings(gone, mtu(9000)); got != nil {
		t.Errorf("a device not attached: warnings %q, want none", got)
	}
}

// TestStatusWarnsOfAFilterBeforeQJump: a filter put on a clsact egress before QJump's since up
// takes the packets it matches past QJump; status names it, QJump's pref and what to do, also
// when the device's MTU cannot be read.
func TestStatusWarnsOfAFilterBeforeQJump(t *testing.T) {
	st := dataplane.Status{Device: "v1a", Attached: true, Attach: dataplane.AttachClsact, FilterPref: 4,
		FiltersBefore: []dataplane.EgressFilter{{Pref: 3, Kind: "u32"}}}
	noMTU := func(string) (int, error) { return 0, errors.New("no such device") }
	got := statusWarnings(st, noMTU)
	want := []string{"a u32 filter at pref 3 on v1a's egress runs before QJump's filter (pref 4)",
		"past QJump, uncounted and unlimited", "a pref above 4", "qjump up --replace"}
	for _, s := range want {
		if len(got) != 1 || !strings.Contains(got[0], s) {
			t.Errorf("warnings %q; want one saying %q", got, s)
		}
	}
	st.Attached = false
	if got := statusWarnings(st, noMTU); got != nil {
		t.Errorf("a device not attached: warnings %q, want none", got)
	}
}

// TestStatusWarnsOfAProgramBeforeQJump: a program attached at the head of a TCX egress since up
// runs before QJump's and takes the packets it passes or redirects past it; status names it, its
// id and what to do.
func TestStatusWarnsOfAProgramBeforeQJump(t *testing.T) {
	st := dataplane.Status{Device: "v1a", Attached: true, Attach: dataplane.AttachTCX,
		ProgramsBefore: []dataplane.EgressProgram{{ID: 42, Name: "cil_to_netdev"}, {ID: 43}}}
	got := statusWarnings(st, func(string) (int, error) { return 0, errors.New("no such device") })
	if len(got) != 2 {
		t.Fatalf("warnings %q; want one for each of the two programs", got)
	}
	for _, s := range []string{"the TCX program cil_to_netdev (id 42) on v1a's egress runs before QJump's",
		"past QJump, uncounted and unlimited", "qjump up --replace"} {
		if !strings.Contains(got[0], s) {
			t.Errorf("warning %q; want it to say %q", got[0], s)
		}
	}
	if !strings.HasPrefix(got[1], "a TCX program (id 43) on v1a's egress") {
		t.Errorf("warning %q for a program without a name; want it named by its id", got[1])
	}
}

// twoGuaranteed is 12 hosts at 10 Gb/s with one full 1500-MTU frame as P, levels 7 and 6 at
// factor 1 (both guaranteed at m = 2) and an unlimited level 0, in police mode.
func twoGuaranteed(t *testing.T) config.Dataplane {
	t.Helper()
	c := config.Default()
	c.Model.Hosts, c.Model.Rate = 12, model.Rate(10e9)
	c.Model.Factors = model.Factors{7: model.Limited(1), 6: model.Limited(1), 0: model.Unlimited()}
	c, err := c.ResolvePacket(1500)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStatusSaysTheGuarantees: status names the levels with a bound under full fan-in and the
// bound, as calc prints it for the mode that runs, to four digits: for the configuration below
// 29.53µs (one epoch) for level 7 and 88.59µs (three: level 7's later budgets come first) for
// level 6 in police mode; in shape mode (b = m−1 = 1 budget a host) 14.77µs and 59.06µs (the
// burst of half an epoch per level drains at half of R beside level 7's bucket).
func TestStatusSaysTheGuarantees(t *testing.T) {
	c := twoGuaranteed(t)
	if got, want := guarantees(c), "guaranteed under full fan-in: level 7 within 29.53µs, level 6 within 88.59µs"; got != want {
		t.Errorf("police mode: %q, want %q", got, want)
	}
	c.Mode = config.Shape
	if got, want := guarantees(c), "guaranteed under full fan-in: level 7 within 14.77µs, level 6 within 59.06µs"; got != want {
		t.Errorf("shape mode: %q, want %q", got, want)
	}
	c.Model.Factors = model.Factors{7: model.Unlimited()}
	if got := guarantees(c); !strings.Contains(got, "no level") {
		t.Errorf("an unlimited top level: %q, want no level guaranteed", got)
	}
}

// status --json carries the same guarantees as the text, per level, under calc's field names:
// the configuration of TestStatusSaysTheGuarantees, whose bounds are 29.53µs and 88.59µs in
// police mode and 14.77µs and 59.06µs in shape mode; the unlimited level 0 and the levels not
// configured have none (null).
func TestStatusJSONSaysTheGuarantees(t *testing.T) {
	c := twoGuaranteed(t)
	for _, tc := range []struct {
		mode config.Mode
		want map[int]int64 // level -> fan_in_delay_ns; every other level: not guaranteed
	}{
		{config.Police, map[int]int64{7: 29530, 6: 88589}},
		{config.Shape, map[int]int64{7: 14765, 6: 59059}},
	} {
		c.Mode = tc.mode
		st := newStatusJSON([]dataplane.Status{{Device: "eth0", Config: c}}, nil, func(string) (int, error) { return 1500, nil })
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Devices []struct {
				Levels []struct {
					Level        int    `json:"level"`
					Guaranteed   *bool  `json:"guaranteed"`
					FanInDelayNs *int64 `json:"fan_in_delay_ns"`
				} `json:"levels"`
			} `json:"devices"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if n := len(got.Devices[0].Levels); n != model.NumLevels {
			t.Fatalf("%s mode: %d levels, want all %d", tc.mode, n, model.NumLevels)
		}
		for _, l := range got.Devices[0].Levels {
			want, guaranteed := tc.want[l.Level]
			switch {
			case l.Guaranteed == nil:
				t.Errorf("%s mode, level %d: no guaranteed key", tc.mode, l.Level)
			case *l.Guaranteed != guaranteed:
				t.Errorf("%s mode, level %d: guaranteed %v, want %v", tc.mode, l.Level, *l.Guaranteed, guaranteed)
			case guaranteed && (l.FanInDelayNs == nil || *l.FanInDelayNs != want):
				t.Errorf("%s mode, level %d: fan_in_delay_ns %s, want %d", tc.mode, l.Level, nsText(l.FanInDelayNs), want)
			case !guaranteed && l.FanInDelayNs != nil:
				t.Errorf("%s mode, level %d: fan_in_delay_ns %d, want null", tc.mode, l.Level, *l.FanInDelayNs)
			}
		}
	}
}

// status shows the target rate a level's factor was solved from (up --target-rate), which reload
// keeps and solves again in a new epoch: target_rate_bps in --json (null for a level given a
// factor), a TARGET column in the table. It showed only the factor and the rate, so nothing said
// which levels reload would re-solve.
func TestStatusShowsTargetRates(t *testing.T) {
	ns := newHost(t)
	// 4Mb/s at level 5 of 24Mb/s: factor 3.33333 in 10 hosts' epoch of 10ms, 4 in 12 hosts'.
	up := []string{"up", "--dev", "eth0", "--hosts", "10", "--rate", "24M", "--packet", "1500B",
		"--factors", "7=20,0=unlimited", "--target-rate", "5=4M"}
	if _, errOut, code := qjumpIn(t, ns, nil, up...); code != 0 {
		t.Fatalf("qjump up: exit %d: %s", code, errOut)
	}
	for _, reload := range [][]string{nil, {"reload", "--dev", "eth0", "--hosts", "12"}} {
		if reload != nil {
			if _, errOut, code := qjumpIn(t, ns, nil, reload...); code != 0 {
				t.Fatalf("qjump reload: exit %d: %s", code, errOut)
			}
		}
		out, errOut, code := qjumpIn(t, ns, nil, "status", "--json", "--dev", "eth0")
		if code != 0 {
			t.Fatalf("qjump status --json: exit %d: %s", code, errOut)
		}
		var got struct {
			Devices []struct {
				Levels []map[string]any `json:"levels"`
			} `json:"devices"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Devices) != 1 || len(got.Devices[0].Levels) != model.NumLevels {
			t.Fatalf("after %q: status --json %s; want eth0 with all %d levels", reload, out, model.NumLevels)
		}
		for _, l := range got.Devices[0].Levels {
			level := int(l["level"].(float64))
			target, has := l["target_rate_bps"]
			if want := any(nil); level == 5 {
				if !has || target != 4e6 {
					t.Errorf("after %q: level 5 target_rate_bps %v (present %v), want 4e6", reload, target, has)
				}
			} else if !has || target != want {
				t.Errorf("after %q: level %d target_rate_bps %v (present %v), want null", reload, level, target, has)
			}
		}
		out, errOut, code = qjumpIn(t, ns, nil, "status", "--dev", "eth0")
		if code != 0 {
			t.Fatalf("qjump status: exit %d: %s", code, errOut)
		}
		if !regexp.MustCompile(`(?m)^\s+LEVEL\s+FACTOR\s+BUDGET/EPOCH\s+RATE\s+TARGET\s`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^\s+5\s+\S+\s+\S+\s+4Mb/s\s+4Mb/s\s`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^\s+7\s+20\s+\S+\s+\S+\s+-\s`).MatchString(out) {
			t.Errorf("after %q: status shows no TARGET column with level 5 at 4Mb/s and level 7 without:\n%s", reload, out)
		}
	}
}

// tempAgentStateDir points status at an empty state directory of the test's own for the rest of
// the test, so that an agent of this host is not what status finds by its lock.
func tempAgentStateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.Set(t, &agentStateDir, dir)
	return dir
}

// agentRuns makes dir the state directory of a qjump agent that runs QJump on dev in this
// network namespace, as agent.Manages sees one: its lock held (by this process, until the test
// ends) and its state naming dev and this namespace. Status finds it so when no agent holds this
// namespace's socket (agent.Find), as in the tests' namespace.
func agentRuns(t *testing.T, dir, dev string) {
	t.Helper()
	ns, err := host.NetnsKey()
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.Create(filepath.Join(dir, "agent.lock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() })
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"cgroups": {}, "devices": ["`+dev+`"], "netns": "`+ns+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A device whose hook is gone is one to take down, unless a qjump agent runs QJump on it: the agent
// puts the hook back at its next resync, and status says so instead. Without a visible agent the
// advice covers both. It said "run qjump down" in both cases.
func TestStatusNotAttachedAdvice(t *testing.T) {
	dir := tempAgentStateDir(t)
	st := dataplane.Status{Device: "eth0", Attach: "tcx", Config: twoGuaranteed(t)}
	first := func() string {
		var out strings.Builder
		if err := printStatus(&out, st, lookForAgent()); err != nil {
			t.Fatal(err)
		}
		line, _, _ := strings.Cut(out.String(), "\n")
		return line
	}
	if got := first(); !strings.Contains(got, "run qjump down, unless a qjump agent manages it, which puts it back within a second") {
		t.Errorf("no agent seen: %q; want the advice to cover down and an agent", got)
	}
	agentRuns(t, dir, "eth0")
	want := fmt.Sprintf("the qjump agent (pid %d, state directory %s) runs QJump on eth0 and puts it back within a second",
		os.Getpid(), dir)
	if got := first(); !strings.Contains(got, want) || strings.Contains(got, "run qjump down") {
		t.Errorf("an agent runs eth0: %q; want %q and no qjump down", got, want)
	}
}

// status reads a gone interface's state once: the reading that lets the name through (it has
// state, though no interface) is the one shown, at the start of a watch too. It was read once to
// check the name and again to show it.
func TestStatusReadsAGoneDeviceOnce(t *testing.T) {
	const gone = "qjgone0" // no interface here
	if linkExists(gone) {
		t.Skipf("an interface %s exists here", gone)
	}
	tempAgentStateDir(t)
	reads := 0
	testutil.Set(t, &readDeviceStatus, func(dev string) (dataplane.Status, error) {
		reads++
		return dataplane.Status{Device: dev, Attach: "tcx", Generation: 1, Config: twoGuaranteed(t)}, nil
	})
	for _, opts := range []statusOptions{{dev: gone}, {dev: gone, json: true}} {
		reads = 0
		var out strings.Builder
		err := runStatus(&opts, &out)
		if err != nil || reads != 1 || !strings.Contains(out.String(), gone) {
			t.Errorf("status --dev %s (json %v): %v, %d reads; want its state read once:\n%s", gone, opts.json, err, reads, out.String())
		}
	}
	reads = 0
	ended, end := context.WithCancel(context.Background())
	end() // the watch reads its start, then ends before its first update
	if err := watchStatus(ended, &statusOptions{dev: gone, watch: true, interval: time.Second}, io.Discard, false); err != nil || reads != 1 {
		t.Errorf("status --watch --dev %s: %v, %d reads at the start; want 1", gone, err, reads)
	}
}

// TestStatusSaysTheEgressTreeIsGone: with QJump's egress tree deleted by hand and the hook still
// there, status said "attached" and nothing else while levels went without strict priority and
// the cap at R. It now says EGRESS TREE GONE on the device's line, warns what is there instead
// and what to do (the agent that runs it, when status sees one, or a reload), and --json says
// egress_tree false with the same warning; the exit status stays 0, as for a detached hook.
func TestStatusSaysTheEgressTreeIsGone(t *testing.T) {
	dir := tempAgentStateDir(t)
	const gone = "the root qdisc is noqueue 0: (the kernel's default), not QJump's htb 514a: (deleted or replaced by hand)"
	st := dataplane.Status{Device: "eth0", Attached: true, Attach: "tcx", Config: twoGuaranteed(t), TreeGone: gone,
		Program: dataplane.ProgramBuild()}
	mtu := func(string) (int, error) { return 1500, nil }
	table := func(st dataplane.Status) string {
		var out strings.Builder
		if err := printStatus(&out, st, lookForAgent()); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	out := table(st)
	first, _, _ := strings.Cut(out, "\n")
	if want := "eth0: attached via tcx, EGRESS TREE GONE (see the warning below), police mode"; !strings.HasPrefix(first, want) {
		t.Errorf("first line %q, want it to start %q", first, want)
	}
	for _, want := range []string{"warning: eth0's egress tree is gone: " + gone, "without strict priority and the cap at R=10Gb/s",
		"qjump reload --dev eth0 builds it again with what runs, its counters kept"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	j := newStatusJSON([]dataplane.Status{st}, nil, mtu).Devices[0]
	if j.EgressTree || j.EgressTreeGone != gone || len(j.Warnings) == 0 || !strings.Contains(j.Warnings[0], "qjump reload --dev eth0") {
		t.Errorf("--json: egress_tree %v, egress_tree_gone %q, warnings %q; want false, %q and what to do", j.EgressTree,
			j.EgressTreeGone, j.Warnings, gone)
	}
	if w := newWatchFrame(nil, []dataplane.Status{st}, time.Second, time.Unix(0, 0)).Devices[0]; w.EgressTree {
		t.Errorf("status --watch --json: egress_tree true for a gone tree")
	}

	// An agent that runs QJump on eth0 here: status names it, as for a hook that is gone.
	agentRuns(t, dir, "eth0")
	want := fmt.Sprintf("The qjump agent (pid %d, state directory %s) runs QJump on eth0 and builds it again within a second",
		os.Getpid(), dir)
	if out := table(st); !strings.Contains(out, want) || strings.Contains(out, "builds it again with what runs") {
		t.Errorf("an agent runs eth0: want %q and not the advice to reload:\n%s", want, out)
	}

	st.TreeGone = ""
	if out := table(st); strings.Contains(out, "EGRESS TREE") || strings.Contains(out, "egress tree") {
		t.Errorf("a whole tree: status mentions it:\n%s", out)
	}
	if j := newStatusJSON([]dataplane.Status{st}, nil, mtu).Devices[0]; !j.EgressTree || len(j.Warnings) != 0 {
		t.Errorf("a whole tree: egress_tree %v, warnings %q; want true and none", j.EgressTree, j.Warnings)
	}
}

// status --json's config is the configuration as a file gives it again, for `qjump up --replace
// --config FILE` (docs/dataplane.md): written as a file and read back by the config package, it
// is the configuration that runs, auto P and target rates with it. Before, packet was the size
// an auto P resolved to ("1542B"), which no longer followed an MTU change, and target_rate was
// left out, so the factors stopped being solved again and the TARGET column went to "-".
func TestStatusJSONConfigRoundTrips(t *testing.T) {
	auto := config.Default()
	auto.Model.Hosts, auto.Model.Rate, auto.Mark = 12, model.Rate(10e9), config.MarkPCP
	auto.Model.Factors = model.Factors{7: model.Limited(1), 0: model.Unlimited()}
	auto.TargetRates = map[model.Level]model.Rate{5: model.Rate(2.5e9), 3: model.Rate(1e9 / 3)}
	given := config.Default()
	given.Model.Hosts, given.Model.Rate, given.Mode = 4, model.Rate(1e9), config.Shape
	given.Model.Packet, given.AutoPacket = 9000, false
	for name, d := range map[string]config.Dataplane{"auto P and target rates": auto, "a given P": given} {
		running := solvedFor(t, d, 1500)
		file := filepath.Join(t.TempDir(), "running.yaml")
		if err := os.WriteFile(file, statusJSONConfig(t, asRecorded(t, running)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, back, warnings, err := config.LoadFile(file)
		if err != nil {
			t.Fatalf("%s: status --json's config as a file: %v", name, err)
		}
		// rate is written without a unit as it always was (bits per second), which a file warns
		// of; the target rates are new and carry theirs.
		for _, w := range warnings {
			if !strings.Contains(w, `: rate "`) {
				t.Errorf("%s: status --json's config as a file warns %q", name, w)
			}
		}
		if got := solvedFor(t, back, 1500); !reflect.DeepEqual(got, running) {
			t.Errorf("%s: read back as\n%+v\nwant\n%+v", name, got, running)
		}
		jumbo := solvedFor(t, back, 9000).Model.Packet
		if want := solvedFor(t, d, 9000).Model.Packet; jumbo != want {
			t.Errorf("%s: read back, P on a 9000-byte MTU is %d, want %d", name, jumbo, want)
		}
	}
}

// solvedFor is d as up runs it on a device of this MTU: P resolved, target rates solved.
func solvedFor(t *testing.T, d config.Dataplane, mtu int) config.Dataplane {
	t.Helper()
	d, err := d.ResolvePacket(mtu)
	if err == nil {
		d, err = d.Solved()
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// asRecorded is d as status reads it back from the dataplane's pinned record: the solved
// configuration in the file format, with auto P and the target rates kept beside it.
func asRecorded(t *testing.T, d config.Dataplane) config.Dataplane {
	t.Helper()
	y, err := config.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Parse("pinned record", y)
	if err != nil {
		t.Fatal(err)
	}
	r := config.Default()
	if err := f.Apply(&r); err != nil {
		t.Fatal(err)
	}
	r.AutoPacket, r.SolvedRates = d.AutoPacket, d.SolvedRates
	return r
}

// statusJSONConfig is the config of status --json's one device, as it prints it.
func statusJSONConfig(t *testing.T, d config.Dataplane) []byte {
	t.Helper()
	b, err := json.Marshal(newStatusJSON([]dataplane.Status{{Device: "eth0", Config: d}}, nil, func(string) (int, error) { return 1500, nil }))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Devices []struct {
			Config json.RawMessage `json:"config"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out.Devices[0].Config
}

// nsText is a fan_in_delay_ns as read, null or a number.
func nsText(ns *int64) string {
	if ns == nil {
		return "null"
	}
	return fmt.Sprint(*ns)
}
