package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/results"
)

// A results.json from before runs recorded the machine and the hosts' NIC (docs/results/fan-in)
// is written back without them, not with empty values that read as recorded, and its summary
// says the machine was not recorded.
func TestOldResultsKeepWhatTheyDidNotRecord(t *testing.T) {
	old := `{"experiment":"fan-in","testbed":{"prefix":"qjtb","hosts":5,"rate_bps":100000000,"buffer_packets":100,"host_queue_packets":1000,"classify":"dscp"}}`
	var r Results
	if err := json.Unmarshal([]byte(old), &r); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&r)
	if err != nil || strings.Contains(string(b), `"machine"`) || strings.Contains(string(b), `"host_nic"`) {
		t.Errorf("written back as %s, %v; want neither machine nor host_nic", b, err)
	}
	if m := r.Machine.Method(); !strings.Contains(m, "not recorded") {
		t.Errorf("method of a run that recorded no machine: %q", m)
	}
}

// fanInLossyFixture is fanInFixture with every f7 = 1 probe delivered in 100 µs, and an f7 = 3
// arm, beyond the guarantee, whose permanent queue took 20 ms and lost 30 of its 100 probes: a
// run whose plot rings a point, and whose region A is missed by one probe it lists.
func fanInLossyFixture(t *testing.T) (*Results, []results.Row) {
	t.Helper()
	r, rows := fanInFixture(t)
	for i := range rows {
		if rows[i].Arm == "f7=1" {
			rows[i].Lost, rows[i].LatencyNS = false, 100_000
		}
	}
	bound, guaranteed := fanInBound(r.Model, 3)
	r.Arms = append(r.Arms, results.Arm{Name: fanInArm(3), Bulk: "h2..h5→h1", QJump: true, Param: 3, HasParam: true,
		BoundUS: results.Round3(float64(bound) / 1e3), BoundGuaranteed: guaranteed})
	for i := range 100 {
		rows = append(rows, results.Row{Arm: fanInArm(3), Tool: toolProbe, Metric: metricNetwork, Sender: 2 + i%4, Seq: uint64(i / 4),
			SendNS: 3e9 + int64(i)*1_000_000, LatencyNS: 20_000_000, Lost: i%10 < 3, Param: 3})
	}
	return r, rows
}

// written runs fixture through what a run writes (samples.csv, then finish) into a directory,
// with the machine's stalls where given, and returns it with the files finish wrote.
func written(t *testing.T, r *Results, rows []results.Row, stalls ...machine.Stall) (dir string, files map[string][]byte) {
	t.Helper()
	dir = t.TempDir()
	if err := results.WriteRowsFile(filepath.Join(dir, samplesFile), rows); err != nil {
		t.Fatal(err)
	}
	if stalls != nil {
		if err := machine.WriteCSV(filepath.Join(dir, stallsFile), stalls); err != nil {
			t.Fatal(err)
		}
	}
	if err := finish(r, rows, dir); err != nil {
		t.Fatal(err)
	}
	files = map[string][]byte{}
	for _, f := range []string{"results.json", "summary.md", "fig11-fan-in.png"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	return dir, files
}

// A fan-in run's directory without samples.csv and stalls.csv (as docs/results commits it) is
// redrawn by report from results.json alone: the same plot, summary.md and results.json as the
// run drew from its rows, but for the files results.json no longer lists. Its targets judge what
// the run judged, the latency less the stalls where it measured them, and the missed one keeps
// the sample it lists, which only the rows could find again.
func TestFanInReportWithoutSamples(t *testing.T) {
	const tx = 1e9 + 40*10_000_000 // the 5 ms probe's transmit stamp: 1 ms of it stalled
	for _, stalls := range [][]machine.Stall{nil, {{CPU: 0, FromNS: tx + 1_000_000, ToNS: tx + 2_000_000}}} {
		r, rows := fanInLossyFixture(t)
		dir, run := written(t, r, rows, stalls...)
		if a, want := r.Targets[0], 5000-float64(len(stalls))*1000; a.Met || a.Value != want || len(a.Worst) != 1 {
			t.Fatalf("the fixture's region A should be missed at %.0f µs by one listed probe: %s %v", want, a.Verdict(), a.Worst)
		}
		for _, f := range []string{samplesFile, stallsFile, "fig11-fan-in.png", "summary.md"} {
			if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
		}
		again, err := Report(dir)
		if err != nil {
			t.Fatalf("report without samples.csv: %v", err)
		}
		for f, want := range run {
			got, err := os.ReadFile(filepath.Join(dir, f))
			if f == "results.json" {
				for _, gone := range []string{samplesFile, stallsFile} {
					want = bytes.Replace(want, []byte(`"`+gone+`",`+"\n    "), nil, 1)
				}
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("stalls %v: %s redrawn without samples.csv differs from the run's (%v):\n%s\nwant\n%s", stalls, f, err, got, want)
			}
		}
		if len(again.Targets) == 0 || len(again.Targets[0].Worst) != 1 || again.Targets[0].Worst[0].String() != r.Targets[0].Worst[0].String() {
			t.Errorf("stalls %v: region A's evidence after report: %v, want the run's %v", stalls, again.Targets, r.Targets[0].Worst)
		}
	}
}

// The fan-in plot rings the points that lost probes, from results.json as from the rows: the
// same delivered figures with nothing lost draw another image.
func TestFanInReportRingsLostProbes(t *testing.T) {
	r, rows := fanInLossyFixture(t)
	dir, run := written(t, r, rows)
	if err := os.Remove(filepath.Join(dir, samplesFile)); err != nil {
		t.Fatal(err)
	}
	// f7=3 lost 30 of 100: the same 70 delivered, and none lost.
	lossy := []byte(`"metric": "network",` + "\n      \"param\": 3,\n      \"samples\": 100,\n      \"lost\": 30,")
	clean := []byte(`"metric": "network",` + "\n      \"param\": 3,\n      \"samples\": 70,\n      \"lost\": 0,")
	if !bytes.Contains(run["results.json"], lossy) {
		t.Fatalf("results.json has no f7=3 series that lost 30 of 100:\n%s", run["results.json"])
	}
	draw := func(doc []byte) []byte {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "results.json"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Report(dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "fig11-fan-in.png"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := draw(run["results.json"]); !bytes.Equal(got, run["fig11-fan-in.png"]) {
		t.Error("the plot redrawn from results.json is not the one drawn from the rows")
	}
	if bytes.Equal(draw(bytes.Replace(run["results.json"], lossy, clean, 1)), run["fig11-fan-in.png"]) {
		t.Error("f7=3 with 30 of 100 probes lost drew the same plot as with none lost: no ring")
	}
}

// A results.json written before the bounds and the evidence were recorded (the 100 Mb/s runs in
// docs/results) reports without samples.csv, and its missed target says that the samples over
// its limit are not listed; an experiment whose plots need every sample says it cannot redraw.
func TestReportWithoutSamplesSaysWhatItCannotDraw(t *testing.T) {
	r, rows := fanInLossyFixture(t)
	dir, run := written(t, r, rows)
	if err := os.Remove(filepath.Join(dir, samplesFile)); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(run["results.json"], &doc); err != nil {
		t.Fatal(err)
	}
	for _, a := range doc["arms"].([]any) {
		for _, k := range []string{"bound_us", "formula_us", "bound_guaranteed"} {
			delete(a.(map[string]any), k)
		}
	}
	for _, tg := range doc["targets"].([]any) {
		delete(tg.(map[string]any), "worst")
	}
	old, _ := json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(dir, "results.json"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Report(dir)
	if err != nil {
		t.Fatalf("report of an old results.json without samples.csv: %v", err)
	}
	if a := again.Targets[0]; a.Met || len(a.Worst) != 0 || !strings.Contains(a.Verdict(), "no sample over the limit is listed") {
		t.Errorf("region A of an old run: %s, worst %v; want missed, saying its samples are not listed", a.Verdict(), a.Worst)
	}
	if _, err := os.Stat(filepath.Join(dir, "fig11-fan-in.png")); err != nil {
		t.Errorf("no plot: %v", err)
	}

	doc["experiment"] = "ping-iperf"
	other, _ := json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(dir, "results.json"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Report(dir)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "ping-iperf's plots are drawn from every sample") {
		t.Errorf("report of ping-iperf without samples.csv: %v", err)
	}
}

// 2pc and memcached-sweep are redrawn by report from results.json alone, as docs/results commits
// them: their plots, figures and targets are of each arm's rate. A 2pc run from before param 0
// was written (docs/results/2pc) keeps its idle arms as the sweep's point 0 (review, helper-83).
func TestRateExperimentsReportWithoutSamples(t *testing.T) {
	old := twoPCFixture(4)
	for i := range old.Arms {
		if old.Arms[i].Param == 0 {
			old.Arms[i].HasParam = false
		}
	}
	for i := range old.Series {
		if old.Series[i].Param == 0 {
			old.Series[i].HasParam = false
		}
	}
	quiet := map[float64]float64{1: 1344.6, 2: 2588.5, 4: 5250.3, 8.975: 10819.2}
	bulk := map[float64]float64{1: 1224.4, 2: 2169.8, 4: 2482.9, 8.975: 2588.8}
	sweep := sweepFixture(10393.7, quiet, bulk)
	for _, f5 := range []float64{1, 2, 4, 8.975} {
		sweep.Arms = append(sweep.Arms, results.Arm{Name: sweepArm(f5, false), Param: f5, HasParam: true}, results.Arm{Name: sweepArm(f5, true), Param: f5, HasParam: true})
	}
	for _, c := range []struct {
		r     *Results
		plot  string
		wants []string
	}{
		{old, "fig6-2pc-rate.png", []string{"| 0 | 1198 | 674 | 1716 | 1.43 |", "**no-false-failure**"}},
		{sweep, "fig10-memcached-sweep.png", []string{"| 4 | 5250 | 2483 | 5350 |", "**throughput-capped-with-bulk**"}},
	} {
		dir := t.TempDir()
		if err := results.WriteJSON(filepath.Join(dir, "results.json"), c.r); err != nil {
			t.Fatal(err)
		}
		if _, err := Report(dir); err != nil {
			t.Fatalf("%s: report without samples.csv: %v", c.r.Experiment, err)
		}
		md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range c.wants {
			if !strings.Contains(string(md), want) {
				t.Errorf("%s: summary.md lacks %q:\n%s", c.r.Experiment, want, md)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, c.plot)); err != nil {
			t.Errorf("%s: no plot: %v", c.r.Experiment, err)
		}
	}
}
