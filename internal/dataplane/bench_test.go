package dataplane

import (
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestBenchProgramRuns checks that the benchmark runs and that its figures are ordered as they
// must be; the figures themselves go to docs/performance.md, never into an assertion on time.
func TestBenchProgramRuns(t *testing.T) {
	testutil.RequirePriv(t, "BPF_PROG_TEST_RUN")
	res, err := BenchProgram(10000, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("empty %.1f ns, clock %.1f ns, qjump %.1f ns (%.2f× the clock floor)", res.EmptyNs, res.ClockNs, res.QJumpNs, res.Ratio)
	if res.EmptyNs <= 0 || res.ClockNs <= 0 || res.QJumpNs <= 0 {
		t.Fatalf("non-positive figures: %+v", res)
	}
}

// BenchmarkProgram reports QJump's per-packet cost for `go test -bench`.
func BenchmarkProgram(b *testing.B) {
	testutil.RequirePriv(b, "BPF_PROG_TEST_RUN")
	res, err := BenchProgram(1000000, 5)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.EmptyNs, "empty-ns/pkt")
	b.ReportMetric(res.ClockNs, "clock-ns/pkt")
	b.ReportMetric(res.QJumpNs, "qjump-ns/pkt")
	b.ReportMetric(res.Ratio, "ratio-to-clock")
}
