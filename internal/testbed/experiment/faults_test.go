package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
)

// fanInFixture is a fan-in run without a testbed: a noise arm, an f7 = 0.5 arm with one probe
// far over its bound while h1 received nothing, and an f7 = 1 arm that recorded no arrival.
func fanInFixture(t *testing.T) (*Results, []results.Row) {
	t.Helper()
	r := &Results{Header: results.Header{Experiment: "fan-in", Title: "fan-in", Quick: true}, Testbed: testbed.DefaultConfig(5)}
	env := &Env{opts: Options{Testbed: r.Testbed}, res: r}
	env.setEpsilon(50_000)
	r.Arms = []results.Arm{{Name: "noise", Bulk: "none", Param: 1, HasParam: true}}
	var rows []results.Row
	add := func(arm string, f7 float64, sender int, seq uint64, txNS, latNS int64, lost bool) {
		rows = append(rows, results.Row{Arm: arm, Tool: toolProbe, Metric: metricNetwork, Sender: sender, Seq: seq,
			SendNS: txNS, LatencyNS: latNS, Lost: lost, Param: f7})
	}
	for i := range 100 {
		add("noise", 1, 2+i%4, uint64(i), int64(i)*1_000_000, 20_000, false)
	}
	for _, f7 := range []float64{0.5, 1} {
		bound, guaranteed := fanInBound(r.Model, f7)
		r.Arms = append(r.Arms, results.Arm{Name: fanInArm(f7), Bulk: "h2..h5→h1", QJump: true, Param: f7, HasParam: true,
			BoundUS: float64(bound) / 1e3, BoundGuaranteed: guaranteed})
	}
	for i := range 100 {
		lat := int64(100_000)
		if i == 40 {
			lat = 5_000_000 // 5 ms: a stall, nothing else arrives meanwhile
		}
		add("f7=0.5", 0.5, 2+i%4, uint64(i/4), 1e9+int64(i)*10_000_000, lat, false)
		add("f7=1", 1, 2+i%4, uint64(i/4), 2e9+int64(i)*1_000_000, 0, true)
	}
	return r, rows
}

// An arm that recorded nothing gets no verdict anywhere, and the run fails after writing its
// files, which say why.
func TestFanInAllLostArmFailsTheRun(t *testing.T) {
	r, rows := fanInFixture(t)
	dir := t.TempDir()
	if err := results.WriteRowsFile(filepath.Join(dir, "samples.csv"), rows); err != nil {
		t.Fatal(err)
	}
	err := finish(r, rows, dir)
	if !errors.Is(err, ErrFaults) || !strings.Contains(err.Error(), "arm f7=1: probe network lost all 100 samples") {
		t.Fatalf("finish = %v, want ErrFaults naming arm f7=1", err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	mdRows := 0
	for _, line := range strings.Split(string(md), "\n") {
		if !strings.HasPrefix(line, "| f7=1 | probe |") {
			continue
		}
		mdRows++
		if !strings.Contains(line, "all lost") || strings.Contains(line, "A:") {
			t.Errorf("summary.md row of the all-lost arm: %s", line)
		}
	}
	if mdRows != 1 {
		t.Errorf("summary.md has %d rows of the all-lost arm's probes, want 1 saying all lost:\n%s", mdRows, md)
	}
	if !strings.Contains(string(md), "MEASUREMENT FAULTS") {
		t.Errorf("summary.md does not say the run is faulty:\n%s", md)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if !strings.Contains(string(js), `"faults": [`) || !strings.Contains(string(js), `"max_us": null`) {
		t.Errorf("results.json lacks the faults or the null figures:\n%s", js)
	}
	// region A is judged on f7 = 0.5 alone, which missed: its worst sample is named, with the
	// stall that made it (no probe reached h1 in its 5 ms, so the queues explain two frames and ε).
	a := r.Targets[0]
	if a.Name != "region-a-bound" || !a.Evaluated || a.Met || len(a.Worst) != 1 {
		t.Fatalf("region A: %+v", a)
	}
	w := a.Worst[0]
	if w.Arm != "f7=0.5" || w.Seq != 10 || w.Sender != 2 || w.LatencyUS != 5000 || w.RecvNS-w.SendNS != 5_000_000 {
		t.Errorf("worst sample %+v, want f7=0.5 h2 seq 10, 5000 µs", w)
	}
	frame := float64(r.Model.FrameTimeNS) / 1e3
	if want := results.Round3(2*frame + 50); w.ExplainedUS == nil || *w.ExplainedUS != want || !strings.Contains(w.Context, "0 probes reached h1") {
		t.Errorf("evidence %s, want %.3f µs explained by 0 probes ahead", w, want)
	}
	if !strings.Contains(string(md), "worst: f7=0.5 h2 seq 10: 5000 µs") {
		t.Errorf("summary.md does not name the worst sample:\n%s", md)
	}
	// report rebuilds the same verdict from the files, and fails the same way.
	if _, err := Report(dir); !errors.Is(err, ErrFaults) {
		t.Errorf("report of a faulty run: %v", err)
	}
}
