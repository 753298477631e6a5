package experiment

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/tcp"
	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func smallFabric() topology.Config {
	f := topology.PaperFabric()
	f.Racks, f.HostsPerRack, f.Spines = 2, 4, 2
	return f
}

// One flow alone on the idle fabric completes in its ideal FCT to the packet, for every size
// class and both path lengths, when its window covers the bandwidth-delay product.
func TestIdleFlowCompletesInIdealFCT(t *testing.T) {
	fab := smallFabric()
	fab.Buffer, fab.HostBuffer = 1000, 1000
	for _, size := range []int64{1460, 8760, 100_000, 1_000_000} {
		for _, dst := range []int{1, 5} { // same rack, across the spine
			el, pool := sim.NewEventList(), &sim.PacketPool{}
			net := topology.Build(el, fab, func(rate sim.Rate, limit, host int) sim.Port {
				return sim.NewQueue(el, pool, rate, limit, 0, host >= 0)
			})
			f := &tcp.Flow{ID: 0, Src: 0, Dst: dst, Size: size, Packets: tcp.PacketsFor(size)}
			cfg := tcp.Config{InitCwnd: 1 << 20, MinRTO: sim.Second, MaxRTO: sim.Second, FastRetransmit: true}
			rcv := tcp.NewReceiver(el, pool, f, nil, func(*tcp.Flow) { el.Stop() })
			snd := tcp.NewSender(el, pool, &cfg, tcp.Reno{}, f, net.Route(0, dst, 0, rcv))
			rcv.SetRoute(net.Route(dst, 0, 0, snd))
			snd.Start()
			el.Run(sim.Never)
			ideal := topology.IdealFCT(fab.Path(0, dst), func(i int32) int32 { return tcp.WireSize(size, i) }, f.Packets)
			if d := f.FCT() - ideal; d < 0 || d >= fab.EdgeRate.Serialization(1500) {
				t.Errorf("size %d to %d: FCT %v, ideal %v", size, dst, f.FCT(), ideal)
			}
		}
	}
}

// The base round trip of the paper's fabric across the spine is the pFabric paper's 14.6 µs
// (give or take the ACK's serialization).
func TestPaperFabricBaseRTT(t *testing.T) {
	fab := topology.PaperFabric()
	oneWay := func(size int32) sim.Time {
		return topology.IdealFCT(fab.Path(0, 143), func(int32) int32 { return size }, 1)
	}
	rtt := oneWay(1500) + oneWay(40)
	if rtt < 14500*sim.Nanosecond || rtt > 14800*sim.Nanosecond {
		t.Fatalf("base RTT %v, want about 14.6µs", rtt)
	}
}

func runSmall(t *testing.T, s Scheme, seed uint64) *FCTResult {
	t.Helper()
	cdf, err := workload.Load("websearch")
	if err != nil {
		t.Fatal(err)
	}
	r := runPoint(t, FCTConfig{Scheme: s, Workload: cdf, Load: 0.6, Flows: 150, Seed: seed, Fabric: smallFabric()})
	if r.Unfinished != 0 {
		t.Fatalf("%s: %d flows unfinished", s, r.Unfinished)
	}
	return r
}

func csvOf(t *testing.T, r *FCTResult) []byte {
	var b bytes.Buffer
	if err := WriteFlowsCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Golden output: every scheme on a small fabric, the variants too, flows CSV byte for byte. Run
// with -update after a deliberate change of behaviour and review the diff.
func TestGoldenFlows(t *testing.T) {
	for _, s := range allSchemes() {
		got := csvOf(t, runSmall(t, s, 7))
		file := filepath.Join("testdata", "golden-"+string(s)+".csv")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: flows differ from %s (go test -update rewrites it)", s, file)
		}
	}
}

// The same seed gives the same output, also when points run in parallel; another seed does not.
func TestDeterministicAcrossWorkers(t *testing.T) {
	c := DefaultFig9(true)
	c.Workloads, c.Loads, c.Flows, c.Fabric = []string{"websearch"}, []float64{0.3, 0.7}, map[string]int{"websearch": 100}, smallFabric()
	run := func(workers int, seed uint64) [][]byte {
		c.Workers, c.Seed = workers, seed
		r, err := RunFig9(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, p := range r.Points {
			out = append(out, csvOf(t, p))
		}
		return out
	}
	one, four, other := run(1, 3), run(4, 3), run(4, 4)
	for i := range one {
		if !bytes.Equal(one[i], four[i]) {
			t.Fatalf("point %d differs between 1 and 4 workers", i)
		}
	}
	if bytes.Equal(one[0], other[0]) {
		t.Fatal("seeds 3 and 4 gave the same flows")
	}
}
