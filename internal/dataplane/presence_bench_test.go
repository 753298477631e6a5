package dataplane

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// BenchmarkPresent reports what the agent's every-second check costs a device
// (docs/dataplane.md, "The egress tree is checked"; docs/deployment.md): Present (the record, the
// hook and the tree), and the hook's and the tree's checks alone, b.N rounds each on eth0 of a
// test namespace with QJump up. Run it with `sudo go test -run - -bench Present -benchtime 2000x
// ./internal/dataplane`. The loops run on the namespace's thread, not in sub-benchmarks, which Go
// runs on other goroutines and so outside the namespace.
func BenchmarkPresent(b *testing.B) {
	testutil.RequirePriv(b, "network namespaces")
	k := os.Getpid() % 250
	pair, err := nspair.New(context.Background(), fmt.Sprintf("qjbp-%d", k),
		fmt.Sprintf("198.19.%d.1", k), fmt.Sprintf("198.19.%d.2", k))
	if err != nil {
		b.Fatal(err)
	}
	defer pair.Remove()
	testutil.InNetns(b, pair.A, func() {
		if _, err := Up(UpOptions{Device: "eth0", Config: testConfig()}); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = Down("eth0") }()
		p, err := pathsFor("eth0")
		if err != nil {
			b.Fatal(err)
		}
		rec, err := readRecord(p)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		b.ReportMetric(perRound(b.N, func() {
			if pr, err := Present("eth0"); err != nil || !pr.Attached || pr.TreeGone != "" {
				b.Fatalf("present: %+v, %v", pr, err)
			}
		}), "present-µs")
		b.ReportMetric(perRound(b.N, func() { attached(p, rec) }), "hook-µs")
		b.ReportMetric(perRound(b.N, func() { treeGone(rec) }), "tree-µs")
	})
}

// perRound is f's mean wall time over n rounds, in µs.
func perRound(n int, f func()) float64 {
	start := time.Now()
	for range n {
		f()
	}
	return float64(time.Since(start).Microseconds()) / float64(n)
}
