package experiment

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
)

// The strict targets judge a probe's latency less the machine's measured stalls during it: the
// fixture's 5 ms probe at f7 = 0.5 passes when the machine stood still for 4.6 ms of it, and
// still misses, with the stall in its evidence, when only 1 ms of it was measured.
func TestFanInTakesMeasuredStallsOut(t *testing.T) {
	const tx = 1e9 + 40*10_000_000 // the 5 ms probe's transmit stamp
	for _, c := range []struct {
		stall   machine.Stall
		met     bool
		judged  float64 // the f7=0.5 arm's maximum less stalls, µs
		stalled float64
	}{
		{machine.Stall{CPU: 1, FromNS: tx + 200_000, ToNS: tx + 4_800_000}, true, 400, 4600},
		{machine.Stall{CPU: 0, FromNS: tx + 1_000_000, ToNS: tx + 2_000_000}, false, 4000, 1000},
	} {
		r, rows := fanInFixture(t)
		for i := range rows {
			if rows[i].Arm == "f7=1" {
				rows[i].Lost, rows[i].LatencyNS = false, 100_000
			}
		}
		dir := t.TempDir()
		if err := results.WriteRowsFile(filepath.Join(dir, "samples.csv"), rows); err != nil {
			t.Fatal(err)
		}
		if err := machine.WriteCSV(filepath.Join(dir, stallsFile), []machine.Stall{c.stall}); err != nil {
			t.Fatal(err)
		}
		if err := finish(r, rows, dir); err != nil {
			t.Fatal(err)
		}
		raw, _ := r.series("f7=0.5", toolProbe, metricNetwork)
		judged, ok := r.series("f7=0.5", toolProbe, metricNetwork+lessStallsSuffix)
		if !ok || raw.MaxUS != 5000 || judged.MaxUS != c.judged || judged.Samples != raw.Samples {
			t.Errorf("stall %v: f7=0.5 max %.0f µs, less stalls %.0f µs (%v), want 5000 and %.0f", c.stall, raw.MaxUS, judged.MaxUS, ok, c.judged)
		}
		a := r.Targets[0]
		if a.Met != c.met || a.Value != c.judged {
			t.Errorf("stall %v: region A %s, want met %v at %.0f µs", c.stall, a.Verdict(), c.met, c.judged)
		}
		if !c.met && (len(a.Worst) != 1 || a.Worst[0].StalledUS == nil || *a.Worst[0].StalledUS != c.stalled || a.Worst[0].LatencyUS != 5000) {
			t.Errorf("stall %v: evidence %v, want the 5000 µs probe with %.0f µs stalled", c.stall, a.Worst, c.stalled)
		}
		if r.Machine.Stalls == nil || r.Machine.Stalls.Count != 1 || len(r.Files) < 4 || r.Files[3] != stallsFile {
			t.Errorf("stall %v: machine %+v, files %v; want one stall and %s listed", c.stall, r.Machine.Stalls, r.Files, stallsFile)
		}
		again, err := Report(dir)
		if err != nil || again.Targets[0].Met != c.met || again.Targets[0].Value != c.judged {
			t.Errorf("stall %v: report gave %v, %v", c.stall, again.Targets[0].Verdict(), err)
		}
	}
}

// ping-iperf judges one-way latencies less the measured stalls: five QJump probes held 30 ms by
// a stall of the machine make its p99 a hundred times the rest, and the targets judge the rest.
func TestPingIperfTakesMeasuredStallsOut(t *testing.T) {
	r := &Results{Header: results.Header{Experiment: "ping-iperf", Title: "ping-iperf", Quick: true}, Testbed: testbed.DefaultConfig(4)}
	env := &Env{opts: Options{Testbed: r.Testbed}, res: r}
	env.setEpsilon(50_000)
	var rows []results.Row
	lat := map[string]int64{"idle": 100_000, "switch-queue": 100_000_000, "qjump": 200_000}
	for a, arm := range []string{"idle", "switch-queue", "qjump"} {
		r.Arms = append(r.Arms, results.Arm{Name: arm, QJump: arm == "qjump", Param: 1, HasParam: true})
		for i := range 100 {
			send, l := int64(a+1)*1e9+int64(i)*1e6, lat[arm]
			if arm == "qjump" && i >= 50 && i < 55 {
				l = 30_000_000
			}
			rows = append(rows, results.Row{Arm: arm, Tool: toolProbe, Metric: metricOneWay, Sender: 1, Seq: uint64(i), SendNS: send, LatencyNS: l})
		}
	}
	stall := machine.Stall{CPU: 0, FromNS: 3e9 + 50e6, ToNS: 3e9 + 50e6 + 34e6} // covers probes 50-54
	for _, measured := range []bool{false, true} {
		dir := t.TempDir()
		if err := results.WriteRowsFile(filepath.Join(dir, "samples.csv"), rows); err != nil {
			t.Fatal(err)
		}
		if measured {
			if err := machine.WriteCSV(filepath.Join(dir, stallsFile), []machine.Stall{stall}); err != nil {
				t.Fatal(err)
			}
		}
		got := *r
		if err := finish(&got, rows, dir); err != nil {
			t.Fatal(err)
		}
		near, ratio := got.Targets[0], got.Targets[1]
		if near.Met != measured || ratio.Met != measured {
			t.Errorf("stall measured %v: %s, %s; want both %v", measured, near.Verdict(), ratio.Verdict(), measured)
		}
		if _, ok := got.series("qjump", toolProbe, metricOneWay+lessStallsSuffix); ok != measured {
			t.Errorf("stall measured %v: oneway-less-stalls series present %v", measured, ok)
		}
	}
}

// A run without stalls.csv did not measure stalls: results.json says null, not 0 stalls.
func TestStallsNotMeasuredAreNull(t *testing.T) {
	r := &Results{Machine: MachineInfo{CPUs: "polling", StallMonitor: "on", StallThresholdUS: 200}}
	if err := loadStalls(r, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r.Machine)
	if err != nil || !strings.Contains(string(b), `"stalls":null`) {
		t.Errorf("machine without stalls.csv: %s, %v; want stalls null", b, err)
	}
	if m := r.Machine.Method(); !strings.Contains(m, "left no stalls.csv") {
		t.Errorf("method: %q", m)
	}
}

// fan-in's criteria say whether the latencies they judge are less the machine's stalls: only a
// run that measured them takes them out, and one that did not (before the stall monitor, or its
// monitor failed) judges the raw latencies, which its criteria said it did not.
func TestFanInCriteriaSayWhatWasJudged(t *testing.T) {
	for _, measured := range []bool{false, true} {
		r, rows := fanInFixture(t)
		dir := t.TempDir()
		if measured {
			if err := machine.WriteCSV(filepath.Join(dir, stallsFile), []machine.Stall{{CPU: 0, FromNS: 1, ToNS: 2}}); err != nil {
				t.Fatal(err)
			}
		}
		// The fixture's f7=1 arm lost every probe: ErrFaults, and nothing else.
		if err := finish(r, rows, dir); !errors.Is(err, ErrFaults) {
			t.Fatalf("stalls measured %v: finish = %v, want ErrFaults for the all-lost arm", measured, err)
		}
		checkCriteria(t, measured, r.Targets, "region-a-bound", "noise-floor")
	}
}

// TestPingIperfCriteriaSayWhatWasJudged: ping-iperf's targets judge the one-way latency less the
// machine's stalls where the run measured them, and the raw latency otherwise; the criteria named
// the stalls in both cases.
func TestPingIperfCriteriaSayWhatWasJudged(t *testing.T) {
	for _, measured := range []bool{false, true} {
		metric := metricOneWay
		if measured {
			metric += lessStallsSuffix
		}
		r := &Results{}
		for _, arm := range []string{"idle", "switch-queue", "qjump"} {
			r.Series = append(r.Series, results.Series{Arm: arm, Tool: toolProbe, Metric: metric, Stats: results.Stats{Samples: 10, P99US: 100}})
		}
		targets := pingIperfTargets(r)
		for _, target := range targets {
			if !target.Evaluated {
				t.Fatalf("stalls measured %v: %s not evaluated (%s)", measured, target.Name, target.Note)
			}
		}
		checkCriteria(t, measured, targets, "qjump-near-idle", "contended-vs-qjump")
	}
}

// checkCriteria fails t unless targets are the ones named, in order, each of whose criteria
// names the machine's stalls exactly when they were measured.
func checkCriteria(t *testing.T, measured bool, targets []results.Target, names ...string) {
	t.Helper()
	var got []string
	for _, target := range targets {
		got = append(got, target.Name)
		if says := strings.Contains(target.Criterion, "stall"); says != measured {
			t.Errorf("stalls measured %v: %s says %q", measured, target.Name, target.Criterion)
		}
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("stalls measured %v: targets %v, want %v", measured, got, names)
	}
}
