package dataplane

import (
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/host"
)

// BenchmarkPresent reports what the agent's every-second check costs a device
// (docs/dataplane.md, "The egress tree is checked"; docs/deployment.md): Present (the privilege,
// bpffs and the network namespace, then the record, the hook and the tree), what the agent pays
// for each device (Pins.Present) and once a round (PinsIn), the hook's and the tree's checks
// alone, and a full DeviceStatus (configuration and counters too), b.N rounds each on eth0 of a test namespace with QJump up. Run it with `sudo go test
// -run - -bench Present -benchtime 5000x ./internal/dataplane`. The loops run on the namespace's
// thread, not in sub-benchmarks, which Go runs on other goroutines and so outside the namespace.
func BenchmarkPresent(b *testing.B) {
	upInTestNetns(b, "qjbp", testConfig(), func(p paths) {
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

// BenchmarkTreeCheckByQdiscs reports the tree's check (treeGone) with 0, 100 and 300 more veths
// in the namespace, each with a pfifo: the check reads the leaves' kinds from a dump of every
// qdisc in the namespace, which the kernel does not filter by device (docs/dataplane.md, "The
// egress tree is checked"). Run it with `sudo go test -run - -bench TreeCheckByQdiscs -benchtime
// 2000x ./internal/dataplane`.
func BenchmarkTreeCheckByQdiscs(b *testing.B) {
	upInTestNetns(b, "qjbq", testConfig(), func(p paths) {
		rec, err := readRecord(p)
		if err != nil {
			b.Fatal(err)
		}
		added := 0
		for _, more := range []int{0, 100, 300} {
			for ; added < more; added++ {
				veth := fmt.Sprintf("v%d", added)
				for _, argv := range [][]string{{"ip", "link", "add", veth, "type", "veth", "peer", "name", fmt.Sprintf("w%d", added)},
					{"tc", "qdisc", "add", "dev", veth, "root", "pfifo"}} {
					if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
						b.Fatalf("%v: %v: %s", argv, err, out)
					}
				}
			}
			b.ReportMetric(perRound(b.N, func() { treeGone(rec) }), fmt.Sprintf("tree-µs-%d-more", more))
		}
	})
}
