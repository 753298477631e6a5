package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// A small sweep written down and rebuilt by Report from its flows files gives the same
// results.json and summary.md, and the panels exist.
func TestReportRebuildsFig9(t *testing.T) {
	fab := topology.PaperFabric()
	fab.Racks, fab.HostsPerRack, fab.Spines = 2, 4, 2
	c := Fig9Config{Workloads: []string{"websearch"}, Loads: []float64{0.3, 0.6}, Schemes: []Scheme{TCP, QJump},
		Flows: map[string]int{"websearch": 40}, Seed: 3, Workers: 2, Fabric: fab}
	res, err := RunFig9(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := results.Header{Experiment: ExperimentFig9, Title: "t", Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)}
	doc := NewFCTDocument(h, c, res.Points)
	if err := WriteFCT(dir, doc, res.Points); err != nil {
		t.Fatal(err)
	}
	if len(doc.Series) != 3*len(res.Points) || len(doc.Arms) != 4 {
		t.Fatalf("%d series, %d arms; want 3 per point and one arm per scheme and load", len(doc.Series), len(doc.Arms))
	}
	before := readAll(t, dir, "results.json", "summary.md")
	if _, err := Report(dir); err != nil {
		t.Fatal(err)
	}
	after := readAll(t, dir, "results.json", "summary.md")
	for i := range before {
		if !bytes.Equal(before[i], after[i]) {
			t.Errorf("file %d differs after report:\n%s\nwant:\n%s", i, after[i], before[i])
		}
	}
	for _, f := range []string{"fig9a.png", "fig9b.png", "flows/websearch-0.3-qjump.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	// A truncated flows file, or some missing, is refused and results.json left as it was.
	flowsFile := filepath.Join(dir, "flows/websearch-0.3-qjump.csv")
	whole, err := os.ReadFile(flowsFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(whole, []byte("\n"))
	if err := os.WriteFile(flowsFile, bytes.Join(lines[:len(lines)/2], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Report(dir); err == nil || !strings.Contains(err.Error(), "truncated or from another run") {
		t.Errorf("report of a truncated flows file: %v, want it refused", err)
	}
	if err := os.Remove(flowsFile); err != nil {
		t.Fatal(err)
	}
	if _, err := Report(dir); err == nil || !strings.Contains(err.Error(), "1 of the 4 flows files") {
		t.Errorf("report with one flows file missing: %v, want it refused", err)
	}
	if again := readAll(t, dir, "results.json"); !bytes.Equal(again[0], before[0]) {
		t.Errorf("a refused report changed results.json")
	}
	// A point whose flows file is not named at all (a hand-edited results.json) is named itself.
	unnamed := *doc
	unnamed.Points = append([]PointSummary(nil), doc.Points...)
	unnamed.Points[1].FlowsFile = ""
	if err := ReportFCT(dir, &unnamed); err == nil || !strings.Contains(err.Error(), "none named for websearch "+unnamed.Points[1].Arm) {
		t.Errorf("report with a point naming no flows file: %v, want the point named", err)
	}
	// Without the flows files the report redraws from results.json's series.
	if err := os.RemoveAll(filepath.Join(dir, "flows")); err != nil {
		t.Fatal(err)
	}
	if _, err := Report(dir); err != nil {
		t.Fatal(err)
	}
	if again := readAll(t, dir, "results.json"); !bytes.Equal(again[0], before[0]) {
		t.Errorf("results.json redrawn from its series differs")
	}
}

func readAll(t *testing.T, dir string, names ...string) [][]byte {
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// A fan-in run's report rewrites its results.json as it was, and reads the forms of files
// written before: the sweeps' host counts under "hosts" (now host_counts, "hosts" being each
// point's own count), and a point beyond the guarantee with bound_us and over_bound 0.
func TestReportReadsFanInAndItsOldForms(t *testing.T) {
	c := DefaultFanIn(24, true)
	c.Factors, c.Probes = []float64{1, 3}, 1000 // m = 2: f7 = 3 has no guaranteed bound
	res, err := RunFanIn(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc := NewFanInDocument(results.Header{Experiment: ExperimentFanIn, Title: "t"}, c, []*FanInResult{res})
	if err := WriteFanIn(dir, doc); err != nil {
		t.Fatal(err)
	}
	written := readAll(t, dir, "results.json")[0]
	if !bytes.Contains(written, []byte(`"host_counts": [`)) || bytes.Contains(written, []byte(`"hosts": [`)) {
		t.Fatalf("results.json should name the sweeps' host counts host_counts:\n%s", written)
	}
	old := bytes.Replace(written, []byte(`"host_counts": [`), []byte(`"hosts": [`), 1)
	old = bytes.Replace(old, []byte(`"bound_us": null,`), []byte(`"bound_us": 0,`), 1)
	old = bytes.Replace(old, []byte(`"over_bound": null`), []byte(`"over_bound": 0`), 1)
	if bytes.Equal(old, written) || bytes.Contains(old, []byte("host_counts")) {
		t.Fatal("the old form was not made")
	}
	for _, file := range [][]byte{written, old} {
		if err := os.WriteFile(filepath.Join(dir, "results.json"), file, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Report(dir); err != nil {
			t.Fatal(err)
		}
		if again := readAll(t, dir, "results.json")[0]; !bytes.Equal(again, written) {
			t.Errorf("report of\n%s\nwrote\n%s\nwant\n%s", file, again, written)
		}
	}
}

// Rates below 1 Gb/s are written in Mb/s or kb/s, as typed: "0.001 Gb/s" read as a typo.
func TestRateTextUnits(t *testing.T) {
	for r, want := range map[sim.Rate]string{10 * sim.Gbps: "10 Gb/s", sim.Gbps * 5 / 2: "2.5 Gb/s", sim.Gbps / 1000: "1 Mb/s",
		sim.Gbps / 10: "100 Mb/s", sim.Gbps / 1_000_000 * 64: "64 kb/s"} {
		if got := rateText(r); got != want {
			t.Errorf("rateText(%d) = %q, want %q", r, got, want)
		}
	}
}
