package dataplane

import (
	"fmt"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestBenchProgramRuns checks that the benchmark runs and measures what it says: BenchProgram
// fails unless every packet was sent on its level (5, limited; 0, unlimited) and none dropped.
// The figures themselves go to docs/performance.md, never into an assertion on time.
func TestBenchProgramRuns(t *testing.T) {
	testutil.RequirePriv(t, "BPF_PROG_TEST_RUN")
	res, err := BenchProgram(2000, 3)
	if err != nil {
		t.Fatal(err)
	}
	ceiling := "not measured: " + res.CeilingSkipped
	if res.CeilingNs != nil {
		ceiling = fmt.Sprintf("%.0f ns", *res.CeilingNs)
	}
	t.Logf("empty %.0f ns, clock %.0f ns, qjump %.0f ns (%.2f× the clock floor), shape %.0f ns, unlimited level %.0f ns, with a ceiling %s",
		res.EmptyNs, res.ClockNs, res.QJumpNs, res.Ratio, res.ShapeNs, res.UnlimitedNs, ceiling)
}

// BenchmarkProgram reports QJump's per-packet cost for `go test -bench`: b.N rounds of 20000
// packets per program, each its own BPF_PROG_TEST_RUN (run it with -benchtime 1x for one round,
// or Nx for N).
func BenchmarkProgram(b *testing.B) {
	testutil.RequirePriv(b, "BPF_PROG_TEST_RUN")
	res, err := BenchProgram(20000, b.N)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.EmptyNs, "empty-ns/pkt")
	b.ReportMetric(res.ClockNs, "clock-ns/pkt")
	b.ReportMetric(res.QJumpNs, "qjump-ns/pkt")
	b.ReportMetric(res.ShapeNs, "shape-ns/pkt")
	b.ReportMetric(res.UnlimitedNs, "unlimited-ns/pkt")
	if res.CeilingNs != nil {
		b.ReportMetric(*res.CeilingNs, "ceiling-ns/pkt")
	}
	b.ReportMetric(res.Ratio, "ratio-to-clock")
}
