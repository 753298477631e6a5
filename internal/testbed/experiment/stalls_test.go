package experiment

import (
	"path/filepath"
	"testing"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/results"
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
		judged, ok := r.series("f7=0.5", toolProbe, metricUnstalled)
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
		if r.Machine.Stalls.Count != 1 || len(r.Files) < 4 || r.Files[3] != stallsFile {
			t.Errorf("stall %v: machine %+v, files %v; want one stall and %s listed", c.stall, r.Machine.Stalls, r.Files, stallsFile)
		}
		again, err := Report(dir)
		if err != nil || again.Targets[0].Met != c.met || again.Targets[0].Value != c.judged {
			t.Errorf("stall %v: report gave %v, %v", c.stall, again.Targets[0].Verdict(), err)
		}
	}
}
