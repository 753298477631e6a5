package dataplane

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

var (
	verdictNext = tcReturn(qjumpQjTcVerdictQJ_TC_NEXT) // pass on
	verdictDrop = tcReturn(qjumpQjTcVerdictQJ_TC_DROP)
)

// skbContext is the head of struct __sk_buff that BPF_PROG_TEST_RUN lets a test set and returns.
type skbContext struct {
	Len, PktType, Mark, QueueMapping, Protocol, VlanPresent, VlanTCI, VlanProto, Priority uint32
	_                                                                                     [164 - 36]byte
	GsoSegs                                                                               uint32
	_                                                                                     [176 - 168]byte // sk
	GsoSize                                                                               uint32
	_                                                                                     [192 - 180]byte
}

// testConfig has an epoch of 16 s (n=1, R=1kb/s, P=1000B, m=2), and a budget of f·1000 bytes on
// every level but 0, which is unlimited. A case crosses no epoch because newRunner starts it clear
// of an epoch's end (awayFromEpochEnd), not because the epoch is long.
func testConfig() config.Dataplane {
	d := config.Default()
	d.Model.Hosts, d.Model.Rate, d.Model.Packet = 1, 1000, 1000
	d.Model.Factors = model.Factors{7: model.Limited(1), 6: model.Limited(1), 5: model.Limited(2),
		4: model.Limited(1), 3: model.Limited(1), 2: model.Limited(1), 1: model.Limited(1), 0: model.Unlimited()}
	return d
}

type runner struct {
	t    *testing.T
	objs *qjumpObjects
}

func newRunner(t *testing.T, d config.Dataplane) *runner {
	t.Helper()
	testutil.RequirePriv(t, "loading the QJump eBPF program")
	objs, err := loadObjects("", encode(d, 1, testClassIDs(d)), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = objs.Close() })
	awayFromEpochEnd(d.Model.Epoch())
	return &runner{t: t, objs: objs}
}

// awayFromEpochEnd waits out the epoch under way if it ends within 2 s, for an epoch of e long
// enough that a case counts on staying in one. The program's epochs lie on a grid of E on the
// clock bpf_ktime_get_ns reads, so a case of milliseconds crosses the end of even a 16 s epoch
// once in a few hundred runs: once in CI, a budget refilled between the frames of
// TestReloadKeepsWhatTheEpochUsed. Shorter epochs are left alone: their cases cross them on
// purpose.
func awayFromEpochEnd(e time.Duration) {
	const margin = 2 * time.Second
	if e < 4*margin {
		return
	}
	if left := e - time.Duration(monotonicNs()%uint64(e)); left < margin {
		time.Sleep(left + time.Millisecond)
	}
}

func testClassIDs(d config.Dataplane) (ids [model.NumLevels]uint32) {
	if d.Mode == config.Shape {
		return htbClassIDs()
	}
	return ids
}

// reload does what Reload does to a device: a new copy of the program with d as its
// configuration, on the runner's maps, in the place of the old one.
func (r *runner) reload(d config.Dataplane, generation uint64) {
	r.t.Helper()
	o := r.objs
	n, err := loadObjects("", encode(d, generation, testClassIDs(d)), map[string]*ebpf.Map{
		qjumpMapBudget: o.Budget, qjumpMapCounters: o.Counters, qjumpMapDemotions: o.Demotions,
		qjumpMapCgroupCeilings: o.CgroupCeilings, qjumpMapCeilingDepths: o.CeilingDepths})
	if err != nil {
		r.t.Fatal(err)
	}
	_ = n.qjumpMaps.Close() // clones of the runner's own
	_ = o.QjumpEgress.Close()
	o.QjumpEgress = n.QjumpEgress
}

// run sends one frame through the program with skb->priority prio.
func (r *runner) run(prio uint32, frame []byte) (verdict uint32, out []byte, outPrio uint32) {
	r.t.Helper()
	return r.runCtx(skbContext{Priority: prio}, frame)
}

// runCtx sends one frame through the program with the skb fields of in.
func (r *runner) runCtx(in skbContext, frame []byte) (verdict uint32, out []byte, outPrio uint32) {
	r.t.Helper()
	var ctxOut skbContext
	buf := make([]byte, len(frame)+64)
	ret, err := r.objs.QjumpEgress.Run(&ebpf.RunOptions{Data: frame, DataOut: buf, Context: in, ContextOut: &ctxOut})
	if err != nil {
		r.t.Fatalf("run program: %v", err)
	}
	return ret, buf[:len(frame)], ctxOut.Priority
}

func (r *runner) counters() [model.NumLevels]Counters {
	r.t.Helper()
	c, err := readCounters(r.objs.Counters)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// pkt is one frame of a case and what must come out.
type pkt struct {
	prio     uint32
	frame    []byte
	verdict  uint32
	out      []byte // nil: the frame unchanged
	outPrio  uint32
	anyPrio  bool // do not check outPrio
	outLevel int  // level whose "sent" counter this packet bumps; -1: none
}

func tos(level int) byte { return byte(level << 5) } // CS<level> in the TOS byte

func TestProgramRun(t *testing.T) {
	malformed := map[string][]byte{
		// BPF_PROG_TEST_RUN itself refuses an untagged IPv4 frame shorter than an IP header (and
		// IPv6 likewise), so those truncations ride behind an 802.1Q tag, which it does not parse.
		"802.1Q, IPv4, no IP header":          vlanTagged(ether(0x0800, nil), 0, 1),
		"802.1Q, IPv4 header cut at 10 bytes": vlanTagged(ether(0x0800, udp4(100, 0)[14:24]), 0, 1),
		"802.1Q, IPv6 header cut at 20 bytes": vlanTagged(ether(0x86dd, udp6(100, 0)[14:34]), 0, 1),
		"IPv4 IHL past the frame":             ether(0x0800, append([]byte{0x4f}, udp4(60, 0)[15:34]...)),
		"IPv4 IHL below 5":                    ether(0x0800, append([]byte{0x44}, udp4(60, 0)[15:]...)),
		"IPv4 ethertype, version 6":           ether(0x0800, udp6(100, 0)[14:]),
		"VLAN tag cut short":                  ether(0x8100, []byte{0x20}),
	}
	cases := []struct {
		name   string
		config func(*config.Dataplane)
		setup  func(*testing.T, *runner)
		pkts   []pkt
		want   func(*testing.T, [model.NumLevels]Counters)
	}{
		{name: "priority p is level p and marked CS p", pkts: []pkt{
			{prio: 5, frame: udp4(500, 0), verdict: verdictNext, out: udp4(500, tos(5)), outPrio: 5, outLevel: 5},
		}},
		{name: "priority 0 is unclassified and takes the default level",
			config: func(d *config.Dataplane) { d.DefaultLevel = 3 },
			pkts:   []pkt{{prio: 0, frame: udp4(100, 0), verdict: verdictNext, out: udp4(100, tos(3)), outPrio: 3, outLevel: 3}}},
		{name: "priority beyond the table takes the default level",
			config: func(d *config.Dataplane) { d.DefaultLevel = 2 },
			pkts:   []pkt{{prio: 0x10001, frame: udp4(100, 0), verdict: verdictNext, out: udp4(100, tos(2)), outPrio: 2, outLevel: 2}}},
		{name: "priority table remaps",
			config: func(d *config.Dataplane) { d.PriorityLevels[2] = 6 },
			pkts:   []pkt{{prio: 2, frame: udp4(100, 0), verdict: verdictNext, out: udp4(100, tos(6)), outPrio: 6, outLevel: 6}}},
		{name: "cgroup ceiling clamps the level", setup: setOwnCeiling(2),
			pkts: []pkt{{prio: 7, frame: udp4(100, 0), verdict: verdictNext, out: udp4(100, tos(2)), outPrio: 2, outLevel: 2}}},
		{name: "cgroup ceiling above the level changes nothing", setup: setOwnCeiling(6),
			pkts: []pkt{{prio: 4, frame: udp4(100, 0), verdict: verdictNext, out: udp4(100, tos(4)), outPrio: 4, outLevel: 4}}},
		// Budgets count wire bytes: a frame of len bytes costs max(len, 60) + 24.
		{name: "police drops a packet over budget", pkts: []pkt{
			{prio: 7, frame: udp4(576, 0), verdict: verdictNext, out: udp4(576, tos(7)), outPrio: 7, outLevel: 7},
			{prio: 7, frame: udp4(376, 0), verdict: verdictNext, out: udp4(376, tos(7)), outPrio: 7, outLevel: 7},
			{prio: 7, frame: udp4(42, 0), verdict: verdictDrop, anyPrio: true, outLevel: -1},
		}, want: func(t *testing.T, c [model.NumLevels]Counters) {
			expect(t, "level 7 sent", c[7].SentPackets, 2)
			expect(t, "level 7 sent bytes", c[7].SentBytes, 1000)
			expect(t, "level 7 dropped", c[7].DroppedPackets, 1)
			expect(t, "level 7 dropped bytes (a 42-byte frame padded to 60, plus 24)", c[7].DroppedBytes, 84)
			expect(t, "level 7 oversize", c[7].OversizePackets, 0)
		}},
		{name: "a frame larger than the whole budget is oversize, not over budget", pkts: []pkt{
			{prio: 7, frame: udp4(977, 0), verdict: verdictDrop, anyPrio: true, outLevel: -1}, // 1001 wire bytes
			{prio: 7, frame: udp4(976, 0), verdict: verdictNext, out: udp4(976, tos(7)), outPrio: 7, outLevel: 7},
		}, want: func(t *testing.T, c [model.NumLevels]Counters) {
			expect(t, "level 7 oversize", c[7].OversizePackets, 1)
			expect(t, "level 7 oversize bytes", c[7].OversizeBytes, 1001)
			expect(t, "level 7 dropped (over budget)", c[7].DroppedPackets, 0)
		}},
		{name: "a full frame passes a factor-1 level with P one full frame on the wire",
			config: func(d *config.Dataplane) { d.Model.Packet = model.FullFrameWire(1500, false) },
			pkts: []pkt{
				{prio: 7, frame: udp4(1514, 0), verdict: verdictNext, out: udp4(1514, tos(7)), outPrio: 7, outLevel: 7},
				{prio: 7, frame: udp4(42, 0), verdict: verdictDrop, anyPrio: true, outLevel: -1},
			}},
		{name: "autoclass demotes to the highest lower level with budget",
			config: func(d *config.Dataplane) { d.Autoclass = true },
			pkts: []pkt{
				{prio: 7, frame: udp4(800, 0), verdict: verdictNext, out: udp4(800, tos(7)), outPrio: 7, outLevel: 7},
				{prio: 6, frame: udp4(800, 0), verdict: verdictNext, out: udp4(800, tos(6)), outPrio: 6, outLevel: 6},
				{prio: 7, frame: udp4(800, 0), verdict: verdictNext, out: udp4(800, tos(5)), outPrio: 5, outLevel: 5},
			}, want: func(t *testing.T, c [model.NumLevels]Counters) {
				expect(t, "level 7 demoted", c[7].DemotedPackets, 1)
				expect(t, "level 7 dropped", c[7].DroppedPackets, 0)
				expect(t, "level 6 demoted", c[6].DemotedPackets, 0)
			}},
		{name: "autoclass drops when no lower level has budget",
			config: func(d *config.Dataplane) {
				d.Autoclass = true
				d.Model.Factors = model.Factors{1: model.Limited(1), 0: model.Limited(1)}
			},
			pkts: []pkt{
				{prio: 1, frame: udp4(900, 0), verdict: verdictNext, out: udp4(900, tos(1)), outPrio: 1, outLevel: 1},
				{prio: 0, frame: udp4(900, 0), verdict: verdictNext, out: udp4(900, tos(0)), outPrio: 0, outLevel: 0},
				{prio: 1, frame: udp4(900, 0), verdict: verdictDrop, anyPrio: true, outLevel: -1},
			}, want: func(t *testing.T, c [model.NumLevels]Counters) {
				expect(t, "level 1 dropped", c[1].DroppedPackets, 1)
			}},
		{name: "unlimited level is marked and counted, never limited", pkts: repeat(20,
			pkt{prio: 0, frame: udp4(1500, 0xff), verdict: verdictNext, out: udp4(1500, 0x03), outPrio: 0, outLevel: 0})},
		{name: "level without a factor sends at the nearest configured level below",
			config: func(d *config.Dataplane) {
				d.Model.Factors = model.Factors{7: model.Limited(1), 5: model.Limited(1), 0: model.Unlimited()}
			},
			pkts: []pkt{
				{prio: 6, frame: udp4(600, 0), verdict: verdictNext, out: udp4(600, tos(5)), outPrio: 5, outLevel: 5},
				{prio: 6, frame: udp4(600, 0), verdict: verdictDrop, anyPrio: true, outLevel: -1}, // 5's budget
				{prio: 3, frame: udp4(1500, 0), verdict: verdictNext, out: udp4(1500, tos(0)), outPrio: 0, outLevel: 0},
			}, want: func(t *testing.T, c [model.NumLevels]Counters) {
				expect(t, "level 5 dropped", c[5].DroppedPackets, 1)
				expect(t, "level 6 counted nothing", c[6].SentPackets+c[6].DroppedPackets, 0)
			}},
		{name: "below every configured level goes to the lowest configured level",
			config: func(d *config.Dataplane) { d.Model.Factors = model.Factors{7: model.Limited(1), 4: model.Limited(2)} },
			pkts:   []pkt{{prio: 0, frame: udp4(100, 0), verdict: verdictNext, out: udp4(100, tos(4)), outPrio: 4, outLevel: 4}}},
		{name: "cgroup ceiling on an unconfigured level clamps to its carrier", setup: setOwnCeiling(6),
			config: func(d *config.Dataplane) {
				d.Model.Factors = model.Factors{7: model.Limited(1), 4: model.Limited(2), 0: model.Unlimited()}
			},
			pkts: []pkt{{prio: 7, frame: udp4(100, 0), verdict: verdictNext, out: udp4(100, tos(4)), outPrio: 4, outLevel: 4}}},
		{name: "autoclass never demotes into an unconfigured level",
			config: func(d *config.Dataplane) {
				d.Autoclass = true
				d.Model.Factors = model.Factors{7: model.Limited(1), 2: model.Limited(1)}
			},
			pkts: []pkt{
				{prio: 7, frame: udp4(900, 0), verdict: verdictNext, out: udp4(900, tos(7)), outPrio: 7, outLevel: 7},
				{prio: 7, frame: udp4(900, 0), verdict: verdictNext, out: udp4(900, tos(2)), outPrio: 2, outLevel: 2},
				{prio: 7, frame: udp4(900, 0), verdict: verdictDrop, anyPrio: true, outLevel: -1},
			}},
		{name: "shape never drops or charges: every packet goes to the level's shaper",
			config: func(d *config.Dataplane) { d.Mode = config.Shape },
			pkts: []pkt{
				{prio: 7, frame: udp4(600, 0), verdict: verdictNext, out: udp4(600, tos(7)), outPrio: htbClassID(7), outLevel: 7},
				{prio: 7, frame: udp4(1200, 0), verdict: verdictNext, out: udp4(1200, tos(7)), outPrio: htbClassID(7), outLevel: 7},
			}, want: func(t *testing.T, c [model.NumLevels]Counters) {
				expect(t, "level 7 dropped", c[7].Dropped(), 0)
				expect(t, "level 7 sent bytes", c[7].SentBytes, 624+1224)
			}},
		{name: "DSCP on IPv4 keeps ECN bits and a valid checksum", pkts: []pkt{
			{prio: 5, frame: udp4(300, 0xb3), verdict: verdictNext, out: udp4(300, tos(5)|0x03), outPrio: 5, outLevel: 5},
		}},
		{name: "DSCP on IPv6 keeps ECN bits and the flow label", pkts: []pkt{
			{prio: 6, frame: udp6(300, 0x2e<<2|0x02), verdict: verdictNext, out: udp6(300, tos(6)|0x02), outPrio: 6, outLevel: 6},
		}},
		{name: "configured DSCP map",
			config: func(d *config.Dataplane) { d.DSCP[5] = 46 },
			pkts:   []pkt{{prio: 5, frame: udp6(100, 0), verdict: verdictNext, out: udp6(100, 46<<2), outPrio: 5, outLevel: 5}}},
		{name: "PCP rewrites an in-band 802.1Q tag, keeps the VLAN id, and DSCP behind it",
			config: func(d *config.Dataplane) { d.Mark = config.MarkBoth },
			pkts: []pkt{{prio: 4, frame: vlanTagged(udp4(200, 0), 0, 42), verdict: verdictNext,
				out: vlanTagged(udp4(200, tos(4)), 4, 42), outPrio: 4, outLevel: 4}}},
		// BPF_PROG_TEST_RUN does not return the skb's VLAN tag, so this case shows only that the
		// payload is left alone; TestMarksOnTheWire sees the tag itself on the peer.
		{name: "PCP on an untagged frame leaves the payload alone",
			config: func(d *config.Dataplane) { d.Mark = config.MarkPCP },
			pkts:   []pkt{{prio: 3, frame: udp4(200, 0), verdict: verdictNext, outPrio: 3, outLevel: 3}}},
		{name: "mark none leaves the frame alone",
			config: func(d *config.Dataplane) { d.Mark = config.MarkNone },
			pkts:   []pkt{{prio: 6, frame: udp4(200, 0), verdict: verdictNext, outPrio: 6, outLevel: 6}}},
		{name: "non-IP frame is classified, counted and not rewritten",
			pkts: []pkt{{prio: 0, frame: ether(0x0806, make([]byte, 28)), verdict: verdictNext, outPrio: 0, outLevel: 0}},
			want: func(t *testing.T, c [model.NumLevels]Counters) {
				expect(t, "malformed", c[0].MalformedPackets, 0)
				expect(t, "not IP", c[0].NotIPPackets, 1)
				expect(t, "not IP bytes", c[0].NotIPBytes, 84)
			}},
		// Review bug: the ceiling was applied before the carrier table, so a ceiling below every
		// configured level sent the packet at the lowest configured level, above the ceiling.
		{name: "a ceiling below every configured level drops, never sends above it", setup: setOwnCeiling(2),
			config: func(d *config.Dataplane) { d.Model.Factors = model.Factors{7: model.Limited(1), 5: model.Limited(12)} },
			pkts:   []pkt{{prio: 7, frame: udp4(100, 0), verdict: verdictDrop, anyPrio: true, outLevel: -1}},
			want: func(t *testing.T, c [model.NumLevels]Counters) {
				expect(t, "no level at 2", c[2].NoLevelPackets, 1)
				expect(t, "level 5 sent", c[5].SentPackets, 0)
			}},
		{name: "a ceiling takes the nearest configured level at or below it", setup: setOwnCeiling(2),
			config: func(d *config.Dataplane) {
				d.Model.Factors = model.Factors{7: model.Limited(1), 5: model.Limited(12), 0: model.Unlimited()}
			},
			pkts: []pkt{{prio: 7, frame: udp4(100, 0), verdict: verdictNext, out: udp4(100, tos(0)), outPrio: 0, outLevel: 0}}},
		// The kernel sends its own control packets at priority 7 (TC_PRIO_CONTROL): they take the
		// default level, never the guaranteed one.
		{name: "IPv6 neighbour discovery at priority 7 takes the default level", config: func(d *config.Dataplane) { d.DefaultLevel = 1 },
			pkts: []pkt{{prio: 7, frame: icmp6(135, false), verdict: verdictNext, out: icmp6tc(135, false, tos(1)), outPrio: 1, outLevel: 1}}},
		{name: "MLD behind a hop-by-hop header at priority 7 takes the default level",
			pkts: []pkt{{prio: 7, frame: icmp6(143, true), verdict: verdictNext, outPrio: 0, outLevel: 0}}},
		{name: "IGMP at priority 7 takes the default level",
			pkts: []pkt{{prio: 7, frame: igmp4(), verdict: verdictNext, outPrio: 0, outLevel: 0}}},
		{name: "ARP at priority 7 takes the default level",
			pkts: []pkt{{prio: 7, frame: ether(0x0806, make([]byte, 28)), verdict: verdictNext, outPrio: 0, outLevel: 0}}},
		{name: "an ICMPv6 echo at priority 7 stays at level 7",
			pkts: []pkt{{prio: 7, frame: icmp6(128, false), verdict: verdictNext, out: icmp6tc(128, false, tos(7)), outPrio: 7, outLevel: 7}}},
	}
	for name, frame := range malformed {
		cases = append(cases, struct {
			name   string
			config func(*config.Dataplane)
			setup  func(*testing.T, *runner)
			pkts   []pkt
			want   func(*testing.T, [model.NumLevels]Counters)
		}{name: "malformed passes unharmed and is counted: " + name,
			pkts: []pkt{{prio: 5, frame: frame, verdict: verdictNext, outPrio: 5, outLevel: 5}},
			want: func(t *testing.T, c [model.NumLevels]Counters) {
				expect(t, "malformed", c[5].MalformedPackets, 1)
			}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := testConfig()
			if tc.config != nil {
				tc.config(&d)
			}
			r := newRunner(t, d)
			if tc.setup != nil {
				tc.setup(t, r)
			}
			var sent [model.NumLevels]uint64
			for i, p := range tc.pkts {
				verdict, out, prio := r.run(p.prio, p.frame)
				want := p.out
				if want == nil {
					want = p.frame
				}
				switch {
				case verdict != p.verdict:
					t.Fatalf("packet %d: verdict %#x, want %#x", i, verdict, p.verdict)
				case p.verdict == verdictNext && !bytes.Equal(out, want):
					t.Fatalf("packet %d: frame out\n%x\nwant\n%x", i, out, want)
				case !p.anyPrio && prio != p.outPrio:
					t.Fatalf("packet %d: skb->priority %#x, want %#x", i, prio, p.outPrio)
				}
				if p.outLevel >= 0 {
					sent[p.outLevel]++
				}
			}
			c := r.counters()
			for l := range model.NumLevels {
				expect(t, "sent at level "+string(rune('0'+l)), c[l].SentPackets, sent[l])
			}
			if tc.want != nil {
				tc.want(t, c)
			}
		})
	}
}

func repeat(n int, p pkt) []pkt {
	out := make([]pkt, n)
	for i := range out {
		out[i] = p
	}
	return out
}

func expect(t *testing.T, what string, got, want uint64) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %d, want %d", what, got, want)
	}
}

// setOwnCeiling puts the test process's own cgroup under a ceiling: BPF_PROG_TEST_RUN gives the
// packet a socket in the caller's cgroup, whose ancestors bpf_skb_ancestor_cgroup_id walks.
func setOwnCeiling(max model.Level) func(*testing.T, *runner) {
	return func(t *testing.T, r *runner) {
		t.Helper()
		r.setCeiling(ownCgroupPath(t), max)
	}
}

// setCeiling gives the cgroup at path a ceiling in the runner's private maps.
func (r *runner) setCeiling(path string, max model.Level) {
	r.t.Helper()
	id, err := host.CgroupID(path)
	if err != nil {
		r.t.Fatal(err)
	}
	depth, err := host.CgroupDepth(path)
	if err != nil {
		testutil.Unavailable(r.t, err.Error())
	}
	if err := putCeiling(r.objs.CgroupCeilings, r.objs.CeilingDepths, id, max, depth); err != nil {
		r.t.Fatal(err)
	}
}

func ownCgroupPath(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rel, ok := strings.CutPrefix(line, "0::"); ok {
			mount, err := host.CgroupMount()
			if err != nil {
				testutil.Unavailable(t, err.Error())
			}
			return filepath.Join(mount, rel)
		}
	}
	testutil.Unavailable(t, "this process is in no cgroup v2")
	return ""
}

var _ = binary.LittleEndian

// TestReloadKeepsWhatTheEpochUsed: a new configuration applies at once to the bytes the current
// epoch has already carried, so a reload never lets one epoch carry old budget plus new budget.
func TestReloadKeepsWhatTheEpochUsed(t *testing.T) {
	d := testConfig()
	r := newRunner(t, d)
	reload := func(f float64, gen uint64) {
		d.Model.Factors[7] = model.Limited(f)
		r.reload(d, gen)
	}
	steps := []struct {
		factor  float64 // reload to this factor first, if non-zero
		size    int
		verdict uint32
	}{
		{size: 600, verdict: verdictNext},             // used 624 of 1000 (wire bytes)
		{factor: 0.5, size: 60, verdict: verdictDrop}, // budget 500 < 624 + 84
		{factor: 2, size: 1352, verdict: verdictNext}, // used 2000 of 2000
		{size: 60, verdict: verdictDrop},
	}
	for i, s := range steps {
		if s.factor != 0 {
			reload(s.factor, uint64(i+2))
		}
		if v, _, _ := r.run(7, udp4(s.size, 0)); v != s.verdict {
			t.Fatalf("step %d: verdict %#x, want %#x", i, v, s.verdict)
		}
	}
}

// TestReloadFollowsTheNewEpoch: review bug: a reload from a long E to a short one kept the epoch
// deadline set under the old E, so the level got one budget for up to the old E (24 ms to 28.8 µs
// gave one budget per 24 ms). An epoch now ends at the earlier of its own end and the new grid's.
func TestReloadFollowsTheNewEpoch(t *testing.T) {
	d := testConfig() // E = 16 s, level 7: 1000 wire bytes per epoch
	r := newRunner(t, d)
	if v, _, _ := r.run(7, udp4(976, 0)); v != verdictNext {
		t.Fatalf("first frame: verdict %#x, want pass", v)
	}
	if v, _, _ := r.run(7, udp4(42, 0)); v != verdictDrop {
		t.Fatalf("second frame in the same 16 s epoch: verdict %#x, want drop", v)
	}
	d.Model.Rate = 1e9 // E = 2·1·1000·8/1G = 16 µs, the same budget
	r.reload(d, 2)
	// The first packet after the reload finds the epoch under way, which keeps what it carried
	// until the new grid's next boundary, at most 16 µs away; a millisecond later is a new epoch.
	r.run(7, udp4(42, 0))
	time.Sleep(time.Millisecond)
	if v, _, _ := r.run(7, udp4(42, 0)); v != verdictNext {
		t.Fatalf("after the reload to E = 16 µs and 1 ms: verdict %#x, want pass (a new epoch)", v)
	}
	// And back to the long epoch: the short one under way ends at its own end, then the new
	// grid applies, so the level cannot send a second budget within the old short epoch.
	d.Model.Rate = 1000
	r.reload(d, 3)
	time.Sleep(time.Millisecond)
	if v, _, _ := r.run(7, udp4(900, 0)); v != verdictNext {
		t.Fatalf("first frame of the new 16 s epoch: verdict %#x, want pass", v)
	}
	if v, _, _ := r.run(7, udp4(200, 0)); v != verdictDrop {
		t.Fatalf("over the budget of the 16 s epoch: verdict %#x, want drop", v)
	}
}
