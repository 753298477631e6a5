package experiment

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/results"
)

// scripts/sim-fig9-table reads the results.json that fig9 writes: one run gives the Fig. 9 table
// docs/reproducing.md shows, a draining and a steady run of the same flows the comparison, each
// cell the figure of the run's own series.
func TestFig9TableScriptReadsTheRuns(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	c := Fig9Config{Workloads: []string{"websearch"}, Loads: []float64{0.4, 0.7}, Schemes: Schemes,
		Flows: map[string]int{"websearch": 60}, Seed: 5, Workers: 2, Fabric: smallFabric()}
	write := func(steady bool) (string, *FCTDocument) {
		c.Steady = steady
		res, err := RunFig9(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		doc := NewFCTDocument(results.Header{Experiment: ExperimentFig9, Title: "t", Started: time.Now()}, c, res.Points)
		if err := WriteFCT(dir, doc, res.Points); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, "results.json"), doc
	}
	drainFile, drain := write(false)
	steadyFile, steady := write(true)
	script := filepath.Join("..", "..", "..", "scripts", "sim-fig9-table")
	run := func(args ...string) string {
		out, err := exec.Command(python, append([]string{script}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("sim-fig9-table %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	large := func(d *FCTDocument, s Scheme, load float64) float64 {
		for _, x := range d.Series {
			if x.Arm == ArmName(s, load) && x.Metric == MetricLarge {
				return x.Stats.MeanUS
			}
		}
		t.Fatalf("no large-flow series for %s at %g", s, load)
		return 0
	}
	one := run(drainFile)
	for _, l := range c.Loads {
		want := fmt.Sprintf("%.2f / %.2f / %.2f / %.2f |", large(drain, TCP, l), large(drain, DCTCP, l),
			large(drain, PFabric, l), large(drain, QJump, l))
		if !strings.Contains(one, fmt.Sprintf("| %g | ", l)) || !strings.Contains(one, want) {
			t.Errorf("load %g: the table lacks the large flows %q:\n%s", l, want, one)
		}
	}
	both := run(drainFile, steadyFile)
	for _, l := range c.Loads {
		want := fmt.Sprintf("| %g | %.2f -> %.2f |", l, large(drain, TCP, l), large(steady, TCP, l))
		if !strings.Contains(both, want) {
			t.Errorf("load %g: the comparison lacks %q:\n%s", l, want, both)
		}
	}
	var hops, wall float64
	for _, p := range drain.Points {
		if p.Scheme == TCP {
			hops, wall = hops+float64(p.Perf.PacketHops), wall+p.Perf.WallSeconds
		}
	}
	if want := fmt.Sprintf("pooled: tcp %.1f M,", hops/wall/1e6); !strings.Contains(run("--speed", drainFile), want) {
		t.Errorf("--speed lacks %q", want)
	}
	if out, err := exec.Command(python, script, steadyFile, drainFile).CombinedOutput(); err == nil {
		t.Errorf("the steady run given first was taken:\n%s", out)
	}
}
