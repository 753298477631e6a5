package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// A sweep whose context ends after its first point returns that point alone, and its document
// keeps the point in the sweep's flows/ layout and marks the arms that never ran.
func TestRunFig9ContextKeepsFinishedPoints(t *testing.T) {
	fab := topology.PaperFabric()
	fab.Racks, fab.HostsPerRack, fab.Spines = 2, 4, 2
	c := Fig9Config{Workloads: []string{"websearch"}, Loads: []float64{0.3, 0.6}, Schemes: []Scheme{TCP, QJump},
		Flows: map[string]int{"websearch": 40}, Seed: 3, Workers: 1, Fabric: fab}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := RunFig9Context(ctx, c, func(*FCTResult) { cancel() })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 1 || res.Planned != 4 || !res.Interrupted() {
		t.Fatalf("%d of %d points kept, interrupted %v; want the first of 4, interrupted", len(res.Points), res.Planned, res.Interrupted())
	}
	dir := t.TempDir()
	doc := NewFCTDocument(results.Header{Experiment: ExperimentFig9, Started: time.Unix(0, 0), Interrupted: "stopped"}, c, res.Points)
	if err := WriteFCT(dir, doc, res.Points); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "flows", "websearch-0.3-tcp.csv")); err != nil {
		t.Errorf("the kept point's flows file: %v", err)
	}
	skipped := 0
	for _, a := range doc.Arms {
		if a.Skipped != "" {
			skipped++
		}
	}
	if skipped != 3 {
		t.Errorf("%d arms marked skipped, want the 3 that never ran", skipped)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "INTERRUPTED, PARTIAL RESULTS: stopped") {
		t.Errorf("summary.md does not say the run was interrupted:\n%s", summary)
	}
}

// A complete sweep is not interrupted, whatever its context did afterwards.
func TestRunFanInContextComplete(t *testing.T) {
	c := DefaultFanIn(24, true)
	c.Factors, c.Probes = []float64{0.5, 1}, 1000
	res, err := RunFanInContext(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 {
		t.Fatalf("%d points, want 2", len(res.Points))
	}
	// Its context ends as the last point is done: every point finished, and is kept.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := 0
	res, err = RunFanInContext(ctx, c, func(FanInPoint) {
		if done++; done == len(c.Factors) {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 {
		t.Fatalf("%d points from a sweep whose context ended after its last point, want 2", len(res.Points))
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	res, err = RunFanInContext(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 0 {
		t.Errorf("%d points from a sweep cancelled before it began, want none", len(res.Points))
	}
}

// Arms name the load in full: 0.25 is not 0.2, 0.04 is not 0.0, and Fig. 9's loads keep the
// names of the committed results (docs/results/sim-fig9).
func TestArmNameKeepsTheLoad(t *testing.T) {
	for load, want := range map[float64]string{0.25: "qjump-0.25", 0.04: "qjump-0.04", 0.1: "qjump-0.1", 0.8: "qjump-0.8", 0.5: "qjump-0.5"} {
		if got := ArmName(QJump, load); got != want {
			t.Errorf("ArmName(qjump, %v) = %q, want %q", load, got, want)
		}
	}
	p := &FCTResult{Workload: "websearch", Load: 0.25, Scheme: TCP}
	if got := flowsFile(p, 2); got != fileName(filepath.Join("flows", "websearch-0.25-tcp.csv")) {
		t.Errorf("flows file %q, want flows/websearch-0.25-tcp.csv", got)
	}
}

// A sweep cut short by an interrupt has its region-A target judged on the points that finished,
// and the target says so rather than reading as a verdict on the whole sweep.
func TestFanInTargetOfAnInterruptedSweepSaysSo(t *testing.T) {
	c := DefaultFanIn(24, true)
	c.Factors, c.Probes = []float64{0.5, 1, 2}, 1000
	whole, err := RunFanIn(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	cut := *whole
	cut.Points = whole.Points[:2] // f7 = 2 did not finish
	for _, tc := range []struct {
		sweep *FanInResult
		note  string
	}{{whole, ""}, {&cut, "judged on the 2 of 3 points that finished before the run was interrupted"}} {
		doc := NewFanInDocument(results.Header{Experiment: ExperimentFanIn}, c, []*FanInResult{tc.sweep})
		if got := doc.Targets[0].Note; got != tc.note {
			t.Errorf("%d of 3 points: target note %q, want %q", len(tc.sweep.Points), got, tc.note)
		}
	}
}
