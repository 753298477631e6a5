package dataplane

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// BenchmarkPresent reports what the agent's every-second check costs a device
// (docs/dataplane.md, "The egress tree is checked"; docs/deployment.md): Present (the privilege,
// bpffs and the network namespace, then the record, the hook and the tree), what the agent pays
// for each device (Pins.Present) and once a round (PinsIn), the hook's and the tree's checks
// alone, and a full DeviceStatus (configuration and counters too), b.N rounds each on eth0 of a test namespace with QJump up. Run it with `sudo go test
// -run - -bench Present -benchtime 5000x ./internal/dataplane`. The loops run on the namespace's
// thread, not in sub-benchmarks, which Go runs on other goroutines and so outside the namespace.
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
		ns, err := host.NetnsKey()
		if err != nil {
			b.Fatal(err)
		}
		pins, err := PinsIn(ns)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		// Present and Pins.Present take turns, round by round, so that the load of the machine
		// weighs on both alike.
		present, pinsPresent := perRoundPair(b.N, func() {
			if pr, err := Present("eth0"); err != nil || !pr.Attached || pr.TreeGone != "" {
				b.Fatalf("present: %+v, %v", pr, err)
			}
		}, func() {
			if pr, err := pins.Present("eth0"); err != nil || !pr.Attached || pr.TreeGone != "" {
				b.Fatalf("pins present: %+v, %v", pr, err)
			}
		})
		b.ReportMetric(present, "present-µs")
		b.ReportMetric(pinsPresent, "pins-present-µs")
		b.ReportMetric(perRound(b.N, func() {
			if _, err := PinsIn(ns); err != nil {
				b.Fatal(err)
			}
		}), "pins-in-µs")
		b.ReportMetric(perRound(b.N, func() { attached(p, rec) }), "hook-µs")
		b.ReportMetric(perRound(b.N, func() { treeGone(rec) }), "tree-µs")
		b.ReportMetric(perRound(b.N, func() {
			if _, err := DeviceStatus("eth0"); err != nil {
				b.Fatal(err)
			}
		}), "device-status-µs")
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

// perRoundPair is the mean wall times of f and g over n rounds of each, in µs, the two taking
// turns (which goes first alternates).
func perRoundPair(n int, f, g func()) (fµs, gµs float64) {
	var tf, tg time.Duration
	timed := func(h func()) time.Duration {
		start := time.Now()
		h()
		return time.Since(start)
	}
	for i := range n {
		if i%2 == 0 {
			tf += timed(f)
			tg += timed(g)
		} else {
			tg += timed(g)
			tf += timed(f)
		}
	}
	return float64(tf.Microseconds()) / float64(n), float64(tg.Microseconds()) / float64(n)
}
