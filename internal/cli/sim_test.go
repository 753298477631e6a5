package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/sim/experiment"
	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

func TestSimFCTWritesFlowsAndResults(t *testing.T) {
	dir := t.TempDir()
	out, errOut, status := run(t, "sim", "fct", "--scheme", "dctcp", "--workload", "datamining", "--load", "0.4",
		"--flows", "50", "--racks", "2", "--hosts-per-rack", "4", "--spines", "2", "--out", dir)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	for _, want := range []string{"P99 x ideal", "dctcp-0.4  datamining  fct-small", "packet-hops"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "flows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(csv), "\n"); lines != 51 {
		t.Errorf("flows.csv has %d lines, want a header and 50 flows", lines)
	}
	for _, f := range []string{"results.json", "summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// report rebuilds the same table from the files: its rows too, not only the lines around them.
	rep, errOut, status := run(t, "sim", "report", dir)
	_, table, _ := strings.Cut(rep, "\n")
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "dctcp-0.4 ") && strings.Contains(table, line+"\n") {
			rows++
		}
	}
	if status != 0 || !strings.Contains(out, table) || rows != 3 {
		t.Errorf("report (status %d, %s):\n%s\nwant the table of the run, its 3 rows:\n%s", status, errOut, rep, out)
	}
}

func TestSimRejectsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"sim", "fct", "--scheme", "reno"},
		{"sim", "fct", "--load", "1.5"},
		{"sim", "fct", "--flows", "0"},
		{"sim", "fct", "--workload", "/nonexistent.csv"},
		{"sim", "fct", "--racks", "0"},
		{"sim", "fct", "--edge-rate", "10GB"},
		{"sim", "run", "fig10"},
		{"sim", "run", "fig9", "--workers", "0"},
		{"sim", "typo"},
	} {
		_, errOut, status := run(t, args...)
		if status != exitUsage || errOut == "" {
			t.Errorf("%v: status %d, stderr %q; want 2 and a message", args, status, errOut)
		}
	}
}

// A run interrupted before any point finished exits 130, says so, and leaves no directory behind.
func TestSimInterruptedBeforeAnyPoint(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt signal received"))
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	err := runSimRun(ctx, &simRunOptions{quick: true, out: out, workers: 1, hosts: []int{144}, seed: 1}, "fig9", &stdout, &stderr)
	if exitStatus(err) != exitInterrupted || err == nil || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("error %v (status %d), want status %d saying nothing was written", err, exitStatus(err), exitInterrupted)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was left behind", out)
	}
	opts := &simFCTOptions{fabric: newFabricFlags(), scheme: "tcp", workload: "websearch", load: 0.5, flows: 100, seed: 1, out: out}
	err = runSimFCT(ctx, opts, &stdout, &stderr)
	if exitStatus(err) != exitInterrupted {
		t.Errorf("fct: error %v (status %d), want status %d", err, exitStatus(err), exitInterrupted)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("fct: %s was left behind", out)
	}
}

// --steady reaches the point, and results.json and summary.md say that the point ran steady and
// how many background flows it simulated.
func TestSimFCTSteadyIsWrittenDown(t *testing.T) {
	dir := t.TempDir()
	_, errOut, status := run(t, "sim", "fct", "--steady", "--load", "0.6", "--flows", "40", "--racks", "2", "--hosts-per-rack", "4", "--spines", "2", "--out", dir)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Steady bool `json:"steady"`
		Points []struct {
			Background int `json:"background_flows"`
		} `json:"points"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Steady || len(doc.Points) != 1 || doc.Points[0].Background == 0 {
		t.Errorf("results.json: steady %v, points %+v; want steady with background flows", doc.Steady, doc.Points)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "steady: flows go on arriving, uncounted, until every counted flow") {
		t.Errorf("summary.md does not say the point ran steady:\n%s", summary)
	}
}

// A load of 0.25 is named 0.25 in the arm and the title, not rounded to 0.2.
func TestSimFCTNamesTheLoadInFull(t *testing.T) {
	dir := t.TempDir()
	out, errOut, status := run(t, "sim", "fct", "--load", "0.25", "--flows", "20", "--racks", "2", "--hosts-per-rack", "4", "--spines", "2", "--out", dir)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	if !strings.Contains(out, "qjump-0.25 ") {
		t.Errorf("table lacks the arm qjump-0.25:\n%s", out)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "at load 0.25") {
		t.Errorf("summary.md's title does not say load 0.25:\n%s", summary)
	}
}

// Every flag is checked before anything is made or simulated: bad input exits 2 with a message
// naming the flag and leaves no --out directory behind.
func TestSimRunChecksFlagsFirst(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "run"}, "fig9 or fan-in"},
		{[]string{"sim", "run", "fan-in", "--quick", "--hosts", "0"}, "--hosts"},
		{[]string{"sim", "run", "fan-in", "--quick", "--hosts", "17"}, "multiple of 16"},
		{[]string{"sim", "run", "fan-in", "--quick", "--hosts", "144,17"}, `--hosts "17"`},
		{[]string{"sim", "run", "fan-in", "--quick", "--hosts", "48,48"}, "given twice"},
		{[]string{"sim", "run", "fan-in", "--quick", "--flows", "10"}, "--flows is for fig9"},
		{[]string{"sim", "run", "fan-in", "--quick", "--steady"}, "--steady is for fig9"},
		{[]string{"sim", "run", "fig9", "--quick", "--hosts", "16"}, "--hosts is for fan-in"},
		{[]string{"sim", "run", "fig9", "--quick", "--flows", "-1"}, "--flows -1"},
		{[]string{"sim", "run", "fig9", "--quick", "--flows", "2000000000000"}, `invalid --flows "2000000000000": need 1 to 1000000 flows`},
		{[]string{"sim", "run", "fig9", "--quick", "--flows", "100000000"}, `invalid --flows "100000000": need 1 to 1000000 flows`},
		{[]string{"sim", "fct", "--flows", "100000000"}, `invalid --flows "100000000": need 1 to 1000000 flows`},
		{[]string{"sim", "fct", "--edge-rate", "10"}, "e.g. 10G for 10 Gb/s"},
		{[]string{"sim", "fct", "--edge-rate", "2T", "--core-rate", "2T", "--link-delay", "0", "--host-delay", "0"},
			`invalid --edge-rate "2T", --link-delay "0" and --host-delay "0" together`},
		// quoted as typed (review, helper-60: "1ps" was quoted as "0.000001µs")
		{[]string{"sim", "fct", "--edge-rate", "2T", "--core-rate", "2T", "--link-delay", "1ps", "--host-delay", "0.000us"},
			`invalid --edge-rate "2T", --link-delay "1ps" and --host-delay "0.000us" together`},
		{[]string{"sim", "fct", "--load", "2"}, "--load"},
		{[]string{"sim", "fct", "--load", "0x1p-1"}, "--load"},
		{[]string{"sim", "fct", "--racks", "4294967296", "--hosts-per-rack", "4294967296"}, "at most 100000 hosts"},
		{[]string{"sim", "fct", "--racks", "1000", "--hosts-per-rack", "101"}, "at most 100000 hosts"},
		{[]string{"sim", "fct", "--racks", "10", "--spines", "10001"}, "at most 100000 ToR-spine links"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		_, errOut, status := run(t, append(c.args, "--out", out)...)
		if status != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and a message with %q", c.args, status, errOut, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: left %s behind", c.args, out)
		}
	}
}

// --flows is bounded by memory, in fig9 as in fct: 10⁸ flows of about 0.4 kB each would take
// some 40 GB before the point ended, and arrive well within the clock's bound.
func TestSimRunBoundsFlows(t *testing.T) {
	opts := &simRunOptions{workers: 1, hosts: []int{144}, flows: 100_000_000}
	err := asFlagError(opts.fig9Config().Validate())
	if err == nil || exitStatus(err) != exitUsage || !strings.Contains(err.Error(), `invalid --flows "100000000": need 1 to 1000000 flows`) {
		t.Errorf("fig9 --flows %d: %v, want a usage error with the bound", opts.flows, err)
	}
	opts.flows = experiment.MaxFlows
	if err := opts.fig9Config().Validate(); err != nil {
		t.Errorf("fig9 --flows %d: %v", opts.flows, err)
	}
}

// A rate without a unit is bits per second: refused with that said when it is outside the
// simulator's bounds (--edge-rate 10 ran at 10 b/s for minutes, --core-rate 1k at 1 kb/s), and
// taken with a warning within them, as the model's and the testbed's --rate are.
func TestSimRatesWithoutAUnit(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in the refusal; "" for none
		warn []string
	}{
		{[]string{"--edge-rate", "10"}, `invalid argument "10" for "--edge-rate" flag: need 1Mb/s to 2Tb/s`, nil},
		{[]string{"--edge-rate", "10"}, "a number without a unit is bits per second (10b/s), e.g. 10G for 10 Gb/s", nil},
		{[]string{"--core-rate", "1k"}, "need 1Mb/s to 2Tb/s", nil},
		{[]string{"--core-rate", "100T"}, "need 1Mb/s to 2Tb/s", nil},
		{[]string{"--edge-rate", "10G", "--core-rate", "2T"}, "", nil},
		{[]string{"--edge-rate", "10000000000", "--core-rate", "40G"}, "", []string{`--edge-rate "10000000000" has no unit: read as 10Gb/s`}},
		{[]string{"--edge-rate", "10000000000", "--core-rate", "40000000000"}, "",
			[]string{`--edge-rate "10000000000" has no unit`, `--core-rate "40000000000" has no unit: read as 40Gb/s`}},
	} {
		f := newFabricFlags()
		fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.register(fs)
		err := fs.Parse(c.args)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: error %v, want one with %q", c.args, err, c.want)
			}
			continue
		}
		ws := f.warnings()
		if err != nil || len(ws) != len(c.warn) {
			t.Errorf("%v: error %v, warnings %q; want %q", c.args, err, ws, c.warn)
			continue
		}
		for i, w := range c.warn {
			if !strings.Contains(ws[i], w) {
				t.Errorf("%v: warning %q, want one with %q", c.args, ws[i], w)
			}
		}
	}
}

// --out is checked before simulating: a path that cannot be a directory is refused at once.
func TestSimFCTChecksOutFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, status := run(t, "sim", "fct", "--out", filepath.Join(file, "dir"))
	if status != exitUsage || !strings.Contains(errOut, "--out") {
		t.Errorf("status %d, stderr %q; want 2 and a message naming --out", status, errOut)
	}
}

// Bad values are explained in words: the sign of a duration, what --load takes, and one rack or
// spine is not "1 racks".
func TestSimWording(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"sim", "fct", "--host-delay", "-1us"}, "negative", "with a unit"},
		{[]string{"sim", "fct", "--host-delay", "10000000h"}, `invalid --host-delay "10000000h": need a delay from 0 to 1s`, "with a unit"},
		{[]string{"sim", "fct", "--link-delay", "2563h"}, `invalid --link-delay "2563h": need a delay from 0 to 1s`, "fabric"},
		{[]string{"sim", "fct", "--link-delay", "0.0001ns"}, "whole number of picoseconds", "with a unit"},
		{[]string{"sim", "run", "fan-in", "--workers", "99999999"}, "need 1 to 1024", "memory"},
		{[]string{"sim", "fct", "--load", "1e-12", "--flows", "2"}, "raise --load or lower --flows", "panic"},
		// sim run has no --load: its message names the flag it has. (The flows' arrival time at
		// the sweep's slowest point is bounded too, but at the paper's loads the memory bound on
		// flows comes first: experiment.TestFig9ValidateNamesTheFlows.)
		{[]string{"sim", "run", "fig9", "--quick", "--flows", "2000000000000"}, "0.4 kB of memory each", "--load"},
		{[]string{"sim", "fct", "--load", "abc"}, "0 < L < 1", "strconv"},
	} {
		_, errOut, status := run(t, c.args...)
		if status != exitUsage || !strings.Contains(errOut, c.want) || strings.Contains(errOut, c.not) {
			t.Errorf("%v: status %d, stderr %q; want 2, %q and not %q", c.args, status, errOut, c.want, c.not)
		}
	}
	out, errOut, status := run(t, "sim", "fct", "--flows", "5", "--racks", "1", "--hosts-per-rack", "3", "--spines", "1")
	if status != 0 || !strings.Contains(out, "(1 rack of 3, 1 spine,") {
		t.Errorf("status %d (%s), headline:\n%s\nwant one rack and one spine in the singular", status, errOut, out)
	}
}

// sim fct says how far a long point is while it runs, on stderr, and the result does not depend
// on it.
func TestSimFCTReportsProgress(t *testing.T) {
	cdf, err := workload.Load("websearch")
	if err != nil {
		t.Fatal(err)
	}
	c := experiment.FCTConfig{Scheme: experiment.TCP, Workload: cdf, Load: 0.5, Flows: 1000, Seed: 1, Fabric: topology.PaperFabric()}
	var stderr bytes.Buffer
	res, err := runFCTInterruptible(context.Background(), c, &stderr, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "websearch load 0.5 tcp: ") || !strings.Contains(stderr.String(), " of 1000 flows completed (") {
		t.Errorf("no progress line:\n%s", stderr.String())
	}
	quiet, err := experiment.RunFCT(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats != quiet.Stats || res.Perf.Events != quiet.Perf.Events {
		t.Errorf("with progress %+v (%d events), without %+v (%d events)", res.Stats, res.Perf.Events, quiet.Stats, quiet.Perf.Events)
	}
}

// sim fct --json without --out writes no file, and its document says so: flows_file null.
func TestSimFCTJSONWithoutOutNamesNoFile(t *testing.T) {
	out, errOut, status := run(t, "sim", "fct", "--scheme", "tcp", "--flows", "20", "--racks", "2", "--hosts-per-rack", "4",
		"--spines", "2", "--json")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	var doc struct {
		Points []map[string]any `json:"points"`
		Files  []string         `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(doc.Points) != 1 || len(doc.Files) != 0 {
		t.Fatalf("points %v, files %v", doc.Points, doc.Files)
	}
	if f, ok := doc.Points[0]["flows_file"]; !ok || f != nil {
		t.Errorf("flows_file %v (present %v), want null", f, ok)
	}
}

// A sweep's progress lines are numbered against the points planned, so that a long run says how
// far it is.
func TestSimRunNumbersItsPoints(t *testing.T) {
	_, errOut, status := run(t, "sim", "run", "fig9", "--quick", "--flows", "20", "--out", t.TempDir())
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	var lines []string // the progress lines: 20 flows a point offer far from their load, which is warned of
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !strings.HasPrefix(l, "qjump: warning: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 24 {
		t.Fatalf("%d progress lines, want one for each of the 24 points:\n%s", len(lines), errOut)
	}
	for i, l := range lines {
		if want := fmt.Sprintf("[%d/24, ", i+1); !strings.HasPrefix(l, want) {
			t.Errorf("line %d %q, want it to start %q", i+1, l, want)
		}
	}
}

// A CDF of flows under one packet offers far more than --load (sizes are drawn in whole packets,
// the arrival rate from the CDF's mean), and sim fct says so, or refuses the load when that
// reaches the edge capacity; the paper's workloads, 0.04 % over, get no warning.
func TestSimFCTWarnsOfRounding(t *testing.T) {
	tiny := filepath.Join(t.TempDir(), "tiny.csv")
	if err := os.WriteFile(tiny, []byte("size_bytes,cdf\n100,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	small := []string{"--flows", "20", "--racks", "1", "--hosts-per-rack", "2", "--spines", "1"}
	_, errOut, status := run(t, append([]string{"sim", "fct", "--workload", tiny, "--load", "0.05"}, small...)...)
	if status != 0 || !strings.Contains(errOut, "offer 14.6 times --load") {
		t.Errorf("a CDF of 100-byte flows at load 0.05: status %d, stderr %q; want 0 and a warning that they offer 14.6 times the load", status, errOut)
	}
	_, errOut, status = run(t, append([]string{"sim", "fct", "--workload", tiny, "--load", "0.5"}, small...)...)
	if status != exitUsage || !strings.Contains(errOut, "7.3 of the edge capacity: need a load below 0.0685") || strings.Contains(errOut, "warning") {
		t.Errorf("a CDF of 100-byte flows at load 0.5: status %d, stderr %q; want 2 and the refusal alone", status, errOut)
	}
	_, errOut, status = run(t, append([]string{"sim", "fct", "--workload", "websearch"}, small...)...)
	if status != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("web search: status %d, stderr %q; want 0 and no warning", status, errOut)
	}
}

// The parameters that depend on --buffer and the fabric are checked with the other flags: a
// dctcp buffer at or below K (it would never mark) and a pfabric buffer that leaves no window are
// refused naming what is allowed; a QJump configuration the model finds suspicious is warned of.
func TestSimSchemeParametersFollowTheFlags(t *testing.T) {
	one := filepath.Join(t.TempDir(), "one.csv")
	if err := os.WriteFile(one, []byte("1460,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--scheme", "dctcp", "--buffer", "40"}, []string{`invalid --buffer "40"`, "K = 65", "more than 65"}},
		{[]string{"--scheme", "dctcp", "--buffer", "65"}, []string{`invalid --buffer "65"`, "more than 65"}},
		{[]string{"--scheme", "pfabric", "--buffer", "1"}, []string{`invalid --buffer "1"`, "at least 2"}},
		// qjump-ns2's interval would pass the clock's end below 2 b/s, which the simulator's
		// bound on rates (1 Mb/s) refuses first.
		{[]string{"--scheme", "qjump-ns2", "--edge-rate", "1"}, []string{`invalid --edge-rate "1"`, "need 1Mb/s to 2Tb/s", "(1b/s), e.g. 1G"}},
	} {
		args := append([]string{"sim", "fct", "--workload", one, "--flows", "1", "--racks", "1", "--hosts-per-rack", "2", "--spines", "1"}, c.args...)
		_, errOut, status := run(t, args...)
		for _, w := range c.want {
			if status != exitUsage || !strings.Contains(errOut, w) {
				t.Errorf("%v: status %d, stderr %q; want 2 and %q", c.args, status, errOut, w)
			}
		}
	}
	// 144 hosts at 10 Mb/s: the epoch n·P/R is 1.04 s.
	_, errOut, status := run(t, "sim", "fct", "--scheme", "qjump", "--workload", one, "--flows", "1", "--load", "0.1",
		"--edge-rate", "10M", "--core-rate", "40M")
	if status != 0 || !strings.Contains(errOut, "qjump: warning: scheme qjump: network epoch") {
		t.Errorf("qjump at 10 Mb/s: status %d, stderr %q; want 0 and the model's warning of a long epoch", status, errOut)
	}
}

// --out holding another experiment's run is refused before anything is simulated: its plots and
// flows would stay beside the new results.json. The same experiment again may overwrite its own.
func TestSimOutOfAnotherExperimentRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "results.json"), []byte(`{"experiment": "sim-fig9"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, status := run(t, "sim", "fct", "--flows", "5", "--out", dir)
	if status != exitUsage || !strings.Contains(errOut, "holds a sim-fig9 run") {
		t.Errorf("sim fct into a fig9 run's directory: status %d, stderr %q; want 2 and why", status, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), []byte(`{"experiment": "sim-fct"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, status := run(t, "sim", "fct", "--flows", "5", "--racks", "1", "--hosts-per-rack", "2", "--spines", "1", "--out", dir); status != 0 {
		t.Errorf("sim fct into a sim fct run's directory: status %d (%s), want 0", status, errOut)
	}
}

// A sweep with so few flows that a panel's every figure is one value (all at the ideal, 1) draws
// it: gonum's range for one value reached 0 on a log axis and sim run panicked, exit 2, before
// writing results.json. A rerun with fewer panels leaves none of the earlier run's, and sim report
// of it succeeds and keeps it so.
func TestSimRunFewFlowsDrawsAndRerunReplaces(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	quick := []string{"sim", "run", "fig9", "--quick", "--workers", "1", "--out", out}
	if _, errOut, status := run(t, append(quick, "--flows", "10")...); status != 0 {
		t.Fatalf("--flows 10: status %d (%s), want 0", status, errOut)
	}
	for _, f := range []string{"fig9c.png", "fig9f.png", "flows/datamining-0.8-qjump.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("--flows 10 wrote no %s: %v", f, err)
		}
	}
	// Two flows per point have no large one: panels c and f have no point.
	if _, errOut, status := run(t, append(quick, "--flows", "2")...); status != 0 {
		t.Fatalf("--flows 2: status %d (%s), want 0", status, errOut)
	}
	for _, after := range []struct {
		name string
		args []string
	}{{"the rerun", nil}, {"sim report", []string{"sim", "report", out}}} {
		if after.args != nil {
			if _, errOut, status := run(t, after.args...); status != 0 {
				t.Fatalf("sim report: status %d (%s), want 0", status, errOut)
			}
		}
		for _, f := range []string{"fig9c.png", "fig9f.png"} {
			if _, err := os.Stat(filepath.Join(out, f)); !os.IsNotExist(err) {
				t.Errorf("after %s, the earlier run's %s is still there (%v)", after.name, f, err)
			}
		}
		if _, err := os.Stat(filepath.Join(out, "fig9a.png")); err != nil {
			t.Errorf("after %s, fig9a.png: %v", after.name, err)
		}
	}
}

// A stopped sweep whose files could not be written says so, rather than that it kept its points
// (review, helper-65: "kept the 7 of 24 points" on a full disk, with nothing kept).
func TestStoppedSweepThatWroteNothingSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt signal received"))
	err := stoppedUnpublished(ctx, true, 7, 24, errors.New("write flows: no space left on device"))
	if got := err.Error(); !strings.Contains(got, "7 of 24 points had finished, but none could be written: write flows") || strings.Contains(got, "kept") {
		t.Errorf("a stopped sweep that wrote nothing: %q", got)
	}
	if err := stoppedUnpublished(ctx, false, 7, 24, errors.New("x")); err.Error() != "x" {
		t.Errorf("a complete sweep's failure: %q, want it as it was", err)
	}
}
