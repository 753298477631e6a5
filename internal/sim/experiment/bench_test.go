package experiment

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

// BenchmarkFCT prints the simulator's speed for one point per scheme at 144 hosts, load 0.5 of
// web search: events and packet-hops per wall second, simulated seconds per wall second and the
// peak heap. Run: go test -run - -bench FCT -benchtime 1x ./internal/sim/experiment/
func BenchmarkFCT(b *testing.B) {
	cdf, err := workload.Load("websearch")
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range Schemes {
		b.Run(string(s), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchPoint(b, FCTConfig{Scheme: s, Workload: cdf, Load: 0.5, Flows: 5000, Seed: 1, Fabric: topology.PaperFabric()})
			}
		})
	}
}

// BenchmarkScaling prints how wall time grows with hosts (144, 576, 2304, four flows per host, so
// the same work per host) and with load (2,000 flows), for TCP on web search at load 0.5.
func BenchmarkScaling(b *testing.B) {
	cdf, _ := workload.Load("websearch")
	for _, racks := range []int{9, 36, 144} {
		fab := topology.PaperFabric()
		fab.Racks = racks
		b.Run(fmt.Sprintf("hosts=%d", fab.Hosts()), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchPoint(b, FCTConfig{Scheme: TCP, Workload: cdf, Load: 0.5, Flows: 4 * fab.Hosts(), Seed: 1, Fabric: fab})
			}
		})
	}
	for _, load := range []float64{0.2, 0.5, 0.8} {
		b.Run(fmt.Sprintf("load=%.1f", load), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchPoint(b, FCTConfig{Scheme: TCP, Workload: cdf, Load: load, Flows: 2000, Seed: 1, Fabric: topology.PaperFabric()})
			}
		})
	}
}

func benchPoint(b *testing.B, c FCTConfig) {
	runtime.GC()
	r, err := RunFCT(c)
	if err != nil {
		b.Fatal(err)
	}
	p := r.Perf
	b.ReportMetric(p.EventsPerSecond()/1e6, "Mevents/s")
	b.ReportMetric(p.HopsPerSecond()/1e6, "Mhops/s")
	b.ReportMetric(p.SimulatedSeconds/p.WallSeconds, "sim-s/wall-s")
	b.ReportMetric(float64(memPeak())/(1<<20), "heapMB")
	b.ReportMetric(p.WallSeconds, "wall-s")
}

// memPeak is the heap the Go runtime obtained from the OS: the process's peak heap, since the
// runtime rarely returns it.
func memPeak() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapSys
}
