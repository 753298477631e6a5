package experiment

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

func factorsOf(c model.Config) []float64 {
	var fs []float64
	for l := range model.NumLevels {
		fs = append(fs, c.Factors[model.Level(l)].Value)
	}
	return fs
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// At n = 144 PaperQJump is §6.4's configuration exactly; on other fabrics level 0 stays at line
// rate (f0 = n), level 7 at 1, and no level is above line rate, so the model warns of nothing.
func TestPaperQJumpFollowsTheFabric(t *testing.T) {
	for _, c := range []struct {
		hosts int
		want  []float64
	}{
		{144, []float64{144, 100, 20, 10, 5, 3, 2, 1}},
		{576, []float64{576, 100, 20, 10, 5, 3, 2, 1}},
		{16, []float64{16, 16, 16, 10, 5, 3, 2, 1}},
		{8, []float64{8, 8, 8, 8, 5, 3, 2, 1}},
		{2, []float64{2, 2, 2, 2, 2, 2, 2, 1}},
	} {
		q := PaperQJump(c.hosts, 10*sim.Gbps)
		if got := factorsOf(q); !sameFloats(got, c.want) {
			t.Errorf("n = %d: factors %v, want %v", c.hosts, got, c.want)
		}
		if err := q.Validate(); err != nil {
			t.Errorf("n = %d: %v", c.hosts, err)
		}
		if w := q.Warnings(); len(w) > 0 {
			t.Errorf("n = %d: model warns %q", c.hosts, w)
		}
		if q.Packet != 9000 || q.Mesochronous != 1 {
			t.Errorf("n = %d: P = %s, m = %d; want 9kB and 1", c.hosts, q.Packet, q.Mesochronous)
		}
		if r := q.LevelRate(q.Factors[0]); r != q.Rate {
			t.Errorf("n = %d: level 0 runs at %s, want line rate %s", c.hosts, r, q.Rate)
		}
	}
	if e := PaperQJump(144, 10*sim.Gbps).EpochPicoseconds(); e != 1_036_800_000 {
		t.Errorf("epoch at n = 144 is %d ps, want n·P/R = 1036.8 µs", e)
	}
}

// Flows go on levels by the paper's budgets at n = 144 on every fabric: the workload's sizes,
// not the fabric's.
func TestLevelForSizeIsThePapersLadder(t *testing.T) {
	paper := PaperQJump(144, 10*sim.Gbps)
	for _, size := range []int64{1, 8760, 8761, 17_520, 18_980, 26_280, 43_800, 87_600, 90_000, 175_200, 180_000,
		876_000, 900_000, 1_000_000, 1 << 30} {
		want := uint8(0)
		wire := size + int64((size+1459)/1460)*40
		for l := model.TopLevel; l > 0; l-- {
			if b, _ := paper.Budget(paper.Factors[l]); int64(b) >= wire {
				want = uint8(l)
				break
			}
		}
		if got := LevelForSize(size); got != want {
			t.Errorf("LevelForSize(%d) = %d, want %d (the highest level whose f·P at n = 144 holds %d wire bytes)", size, got, want, wire)
		}
	}
}

// oneSize is a workload whose every flow is size bytes.
func oneSize(t *testing.T, size string) *workload.CDF {
	t.Helper()
	cdf, err := workload.Parse("one", strings.NewReader(size+",1\n"))
	if err != nil {
		t.Fatal(err)
	}
	return cdf
}

// A 14.6 MB flow alone on an idle fabric runs on level 0 at line rate whatever the fabric's
// size and rates: under qjump it finishes as under tcp (1.03 times its ideal FCT on 10 Gb/s
// edges, 1.31 on 40 Gb/s ones, where slow start is a larger part of it). With the paper's
// f0 = 144 kept on 576 hosts it took 3.88 times its ideal. qjump-ns2 took 3.98 times on 40 Gb/s
// edges with the 1.05 ms interval kept (level 0 at a quarter of the line); at line rate it
// takes 1.12 on 10 Gb/s edges and 1.52 on 40 Gb/s ones: the authors' TCP has no fast
// retransmit, and the limiter's drops in slow start cost it 200 µs timeouts, a larger share of
// a shorter flow.
func TestLoneLargeFlowAtLineRate(t *testing.T) {
	cdf := oneSize(t, "14600000")
	run := func(s Scheme, fab topology.Config) float64 {
		r := runPoint(t, FCTConfig{Scheme: s, Workload: cdf, Load: 0.1, Flows: 1, Seed: 1, Fabric: fab})
		if r.Unfinished != 0 {
			t.Fatalf("%s on %d hosts at %d b/s: unfinished", s, fab.Hosts(), fab.EdgeRate)
		}
		return r.Flows[0].Normalised()
	}
	for _, c := range []struct {
		scheme         Scheme
		racks, perRack int
		edge, core     sim.Rate
		// most is the FCT allowed over the ideal, a multiple of tcp's on the same fabric when
		// relative.
		most     float64
		relative bool
	}{
		{QJump, 9, 16, 10 * sim.Gbps, 40 * sim.Gbps, 1.01, true},
		{QJump, 36, 16, 10 * sim.Gbps, 40 * sim.Gbps, 1.01, true},
		{QJump, 2, 4, 10 * sim.Gbps, 40 * sim.Gbps, 1.01, true},
		{QJump, 9, 16, 40 * sim.Gbps, 100 * sim.Gbps, 1.01, true},
		{QJumpNS2, 9, 16, 10 * sim.Gbps, 40 * sim.Gbps, 1.2, false},
		{QJumpNS2, 9, 16, 40 * sim.Gbps, 100 * sim.Gbps, 1.6, false},
		{QJumpNS2, 9, 16, 1 * sim.Gbps, 4 * sim.Gbps, 1.2, false},
	} {
		fab := topology.PaperFabric()
		fab.Racks, fab.HostsPerRack, fab.EdgeRate, fab.CoreRate = c.racks, c.perRack, c.edge, c.core
		most := c.most
		if c.relative {
			most *= run(TCP, fab)
		}
		if x := run(c.scheme, fab); x > most {
			t.Errorf("%s on %d hosts at %g Gb/s: a lone 14.6 MB flow took %.2f times its ideal FCT, want at most %.2f",
				c.scheme, fab.Hosts(), float64(c.edge)/float64(sim.Gbps), x, most)
		}
	}
}

// qjump-ns2's interval is the authors' 1.05 ms at 10 Gb/s and scales with 10 Gb/s over the edge
// rate, to 10.5 s at the least rate a fabric may have; below that the rate itself is refused.
func TestNS2IntervalFollowsTheEdgeRate(t *testing.T) {
	for _, c := range []struct {
		rate sim.Rate
		want sim.Time
	}{
		{10 * sim.Gbps, 1050 * sim.Microsecond}, {40 * sim.Gbps, 262_500 * sim.Nanosecond},
		{25 * sim.Gbps, 420 * sim.Microsecond}, {1 * sim.Gbps, 10_500 * sim.Microsecond},
		{3 * sim.Gbps, 3_500 * sim.Microsecond}, {topology.MinRate, 10_500 * sim.Millisecond},
	} {
		if got := NS2IntervalAt(c.rate); got != c.want {
			t.Errorf("NS2IntervalAt(%d) = %d; want %d", c.rate, got, c.want)
		}
	}
	fab := topology.PaperFabric()
	fab.EdgeRate = 1
	c := FCTConfig{Scheme: QJumpNS2, Workload: oneSize(t, "1460"), Load: 0.1, Flows: 1, Fabric: fab}
	var fe *model.FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "edge-rate" {
		t.Errorf("qjump-ns2 at 1 b/s: %v, want a refusal of the edge rate", err)
	}
}

// dctcp refuses a buffer at or below K, where it would never mark and run as TCP; above K it
// marks, so its flows are not TCP's.
func TestDCTCPBufferAboveK(t *testing.T) {
	cdf, err := workload.Load("websearch")
	if err != nil {
		t.Fatal(err)
	}
	for _, buffer := range []int{1, 40, DCTCPK} {
		fab := smallFabric()
		fab.Buffer = buffer
		c := FCTConfig{Scheme: DCTCP, Workload: cdf, Load: 0.6, Flows: 150, Seed: 7, Fabric: fab}
		var fe *model.FieldError
		err := c.Validate()
		if !errors.As(err, &fe) || fe.Field != "buffer" || !strings.Contains(fe.Allowed, "K = 65") ||
			!strings.Contains(fe.Allowed, "more than 65") {
			t.Errorf("dctcp with --buffer %d: %v, want a refusal naming K = 65 and what is allowed", buffer, err)
		}
	}
	fab := smallFabric()
	fab.Buffer = DCTCPK + 1
	c := FCTConfig{Scheme: DCTCP, Workload: cdf, Load: 0.6, Flows: 150, Seed: 7, Fabric: fab}
	dctcp := runPoint(t, c)
	c.Scheme = TCP
	tcp := runPoint(t, c)
	if bytes.Equal(csvWithoutScheme(t, dctcp), csvWithoutScheme(t, tcp)) {
		t.Errorf("dctcp at a buffer of K + 1 = %d packets ran exactly as tcp: it never marked", DCTCPK+1)
	}
}

// csvWithoutScheme is a point's flows file without its scheme column, to compare two schemes.
func csvWithoutScheme(t *testing.T, r *FCTResult) []byte {
	return bytes.ReplaceAll(csvOf(t, r), []byte(string(r.Scheme)), nil)
}

// pFabric's window cap is the buffer its ports run with, less one; a buffer of one packet, which
// leaves no window, is refused.
func TestPFabricCapFollowsTheBuffer(t *testing.T) {
	for _, c := range []struct{ buffer, want int }{{0, 23}, {24, 23}, {40, 39}, {2, 1}, {150, 149}} {
		fab := smallFabric()
		fab.Buffer = c.buffer
		p := FCTConfig{Scheme: PFabric, Fabric: fab}
		if got := PFabric.transport(p.fabric().Buffer).MaxCwnd; int(got) != c.want {
			t.Errorf("--buffer %d: window cap %d, want %d", c.buffer, got, c.want)
		}
		if !strings.Contains(schemeText(PFabric, p.fabric()), "windows of at most "+strconv.Itoa(c.want)+" packets") {
			t.Errorf("--buffer %d: description %q does not give the cap %d", c.buffer, schemeText(PFabric, p.fabric()), c.want)
		}
	}
	fab := smallFabric()
	fab.Buffer = 1
	c := FCTConfig{Scheme: PFabric, Workload: oneSize(t, "1460"), Load: 0.1, Flows: 1, Fabric: fab}
	var fe *model.FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "buffer" {
		t.Errorf("pfabric with --buffer 1: %v, want a refusal of the buffer", err)
	}
}

// The paper's fabric draws no warning for any scheme; a fabric whose epoch is over a second, or
// whose round trip puts K under DCTCP's guideline, does.
func TestSchemeWarnings(t *testing.T) {
	for _, s := range allSchemes() {
		c := FCTConfig{Scheme: s, Fabric: topology.PaperFabric()}
		if w := c.Warnings(); len(w) > 0 {
			t.Errorf("%s on the paper's fabric warns %q", s, w)
		}
	}
	slow := topology.PaperFabric()
	slow.Racks, slow.EdgeRate = 1024, 1*sim.Gbps // 16,384 hosts: n·P/R = 1.18 s
	c := FCTConfig{Scheme: QJump, Fabric: slow}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], "scheme qjump: network epoch") {
		t.Errorf("qjump at 16,384 hosts of 1 Gb/s: warnings %q, want the model's long epoch", w)
	}
	far := topology.PaperFabric()
	far.HostDelay = 100 * sim.Microsecond // RTT ≈ 400 µs: C·RTT/7 ≈ 190 packets at 40 Gb/s
	c = FCTConfig{Scheme: DCTCP, Fabric: far}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], "C·RTT/7") {
		t.Errorf("dctcp with 100 µs host delays: warnings %q, want DCTCP's guideline", w)
	}
}
