package dataplane

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/vishvananda/netlink/nl"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/hostnic"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/tctree"
	"github.com/qjump-net/qjump/internal/testutil"
)

// tc runs tc in ns, failing the test if it fails.
func (h *hosts) tc(t *testing.T, ns string, args ...string) {
	t.Helper()
	if _, errOut, code := testutil.Run(t, nil, "ip", append([]string{"netns", "exec", ns, "tc"}, args...)...); code != 0 {
		t.Fatalf("tc %s: %s", strings.Join(args, " "), errOut)
	}
}

// runAll runs argv lists (hostnic's commands), failing the test on the first that fails.
func runAll(t *testing.T, steps [][]string) {
	t.Helper()
	for _, s := range steps {
		if _, errOut, code := testutil.Run(t, nil, s[0], s[1:]...); code != 0 {
			t.Fatalf("%s: %s", strings.Join(s, " "), errOut)
		}
	}
}

// egressOf is eth0's egress tree in ns.
func egressOf(t *testing.T, ns string) tctree.Tree {
	t.Helper()
	var tree tctree.Tree
	var err error
	testutil.InNetns(t, ns, func() {
		var ifi int
		if ifi, err = netInterfaceByName("eth0"); err == nil {
			tree, err = tctree.Snapshot(ifi)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestEgressGivenBack: up takes eth0's egress over in both modes, whatever was there (the kernel's
// default, a hand-made mq, the emulated server NIC, someone's TBF), says what it replaced, and down
// puts exactly that back.
func TestEgressGivenBack(t *testing.T) {
	cases := []struct {
		name   string
		queues int
		setup  func(t *testing.T, h *hosts)
	}{
		{name: "default noqueue", queues: 1},
		{name: "hand-made mq", queues: 4, setup: func(t *testing.T, h *hosts) {
			h.tc(t, h.a, "qdisc", "replace", "dev", "eth0", "root", "handle", "7:", "mq")
		}},
		{name: "emulated server NIC", queues: hostnic.Queues, setup: func(t *testing.T, h *hosts) {
			runAll(t, hostnic.Egress(h.a, "eth0", 100e6, hostnic.Queues))
		}},
		{name: "foreign tbf", queues: 1, setup: func(t *testing.T, h *hosts) {
			h.tc(t, h.a, "qdisc", "add", "dev", "eth0", "root", "handle", "7:", "tbf", "rate", "1gbit", "burst", "64k", "latency", "10ms")
		}},
	}
	for _, c := range cases {
		for _, mode := range []string{"police", "shape"} {
			t.Run(c.name+" "+mode, func(t *testing.T) {
				h := newHosts(t, nspair.Queues(c.queues))
				if c.setup != nil {
					c.setup(t, h)
				}
				before := egressOf(t, h.a)
				_, errOut, code := h.qjump(t, h.a, upArgs("--mode", mode)...)
				if code != 0 {
					t.Fatalf("up: exit %d: %s", code, errOut)
				}
				if want := "replaced " + before.String(); !strings.Contains(errOut, want) {
					t.Errorf("up said %q, want it to name what it replaced: %q", errOut, want)
				}
				if root, _ := egressOf(t, h.a).Root(); root.Type != "htb" || root.Handle != htbRoot() {
					t.Fatalf("after up the root is %s %x, want QJump's htb", root.Type, root.Handle)
				}
				h.mustQjump(t, h.a, "down", "--dev", "eth0")
				if after := egressOf(t, h.a); !tctree.Equal(before, after) {
					t.Fatalf("down left a different egress:\n%s", tctree.Diff(before, after))
				}
			})
		}
	}
}

// TestEgressRefusesWhatItCannotGiveBack: a tree that a dump cannot re-create (a u32 hash table of
// its own) is refused with exit 1, naming it, and nothing changes.
func TestEgressRefusesWhatItCannotGiveBack(t *testing.T) {
	h := newHosts(t)
	h.tc(t, h.a, "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb")
	h.tc(t, h.a, "filter", "add", "dev", "eth0", "parent", "1:", "prio", "5", "handle", "2:", "protocol", "ip", "u32", "divisor", "16")
	before := h.snapshot(t, h.a)
	_, errOut, code := h.qjump(t, h.a, upArgs("--mode", "shape")...)
	if code != 1 || !strings.Contains(errOut, "cannot be restored") || !strings.Contains(errOut, "tc qdisc del dev eth0 root") {
		t.Fatalf("up over an unrestorable tree: exit %d, %q; want exit 1 saying why and what to do", code, errOut)
	}
	if after := h.snapshot(t, h.a); after != before {
		t.Fatalf("refused up changed eth0.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// reloadInProcess runs Reload for eth0 of ns in this process, so that a test can make the kernel
// refuse a change (treeChanger).
func reloadInProcess(t *testing.T, ns string, args ...string) error {
	t.Helper()
	d := solvedConfig(t, args...)
	var err error
	testutil.InNetns(t, ns, func() { err = Reload("eth0", d) })
	return err
}

// solvedConfig is the configuration of these configuration-file lines over the defaults, for a
// 1500-byte MTU, solved.
func solvedConfig(t *testing.T, args ...string) config.Dataplane {
	t.Helper()
	d := config.Default()
	f, err := config.Parse("test", []byte(strings.Join(args, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Apply(&d); err != nil {
		t.Fatal(err)
	}
	if d, err = d.ResolvePacket(1500); err != nil {
		t.Fatal(err)
	}
	if d, err = d.Solved(); err != nil {
		t.Fatal(err)
	}
	return d
}

// shapeConfig is testModel's hosts, R and P in shape mode as a configuration file, with these
// factors and extra lines.
func shapeConfig(factors string, extra ...string) []string {
	return append([]string{"hosts: 10", "rate: 24M", "packet: 1500B", "mode: shape", "factors: " + factors}, extra...)
}

// TestShapeReloadRollsBack: a reload the kernel refuses half-way (here: level 5's new TBF) leaves
// the whole old tree and the old configuration in place; one it accepts changes the level's
// shaper and, when the default level changes, the class that unclassified traffic goes to.
func TestShapeReloadRollsBack(t *testing.T) {
	h := newHosts(t)
	// Levels 7 and 5 at 6 and 12 Mb/s, under R = 24 Mb/s: both get shapers.
	h.mustQjump(t, h.a, "up", "--dev", "eth0", "--mode", "shape", "--hosts", "10", "--rate", "24M", "--packet", "1500B",
		"--factors", "7=5,5=10,0=unlimited")
	before := egressOf(t, h.a)
	refused := errors.New("refused by the test")
	calls := 0
	testutil.Set(t, &treeChanger, func(o tcObject, ifindex, flags int) error {
		calls++
		if o.handle == leafHandle(5) && o.kind == "tbf" && calls < 20 {
			return refused
		}
		return o.send(ifindex, flags)
	})
	err := reloadInProcess(t, h.a, shapeConfig("{7: 5, 5: 5, 0: unlimited}", "default_level: 5")...)
	if !errors.Is(err, refused) || !strings.Contains(err.Error(), "old egress tree is back") {
		t.Fatalf("reload with a refused change: %v; want the refusal and the rollback said", err)
	}
	if after := egressOf(t, h.a); !tctree.Equal(before, after) {
		t.Fatalf("a refused reload left a different tree:\n%s", tctree.Diff(before, after))
	}
	if g := h.status(t, h.a).Devices[0].Generation; g != 1 {
		t.Errorf("generation %d after a refused reload, want 1", g)
	}
	if c := defaultClass(t, before); c != htbClassID(0) {
		t.Fatalf("default class %x after up with default level 0", c)
	}

	calls = 100 // no more refusals
	if err := reloadInProcess(t, h.a, shapeConfig("{7: 5, 5: 5, 0: unlimited}", "default_level: 5")...); err != nil {
		t.Fatal(err)
	}
	after := egressOf(t, h.a)
	if c := defaultClass(t, after); c != htbClassID(5) {
		t.Errorf("default class %x after reload to default level 5, want %x", c, htbClassID(5))
	}
	if tctree.Equal(before, after) {
		t.Error("an accepted reload changed nothing in the tree")
	}
}

// defaultClass is the class QJump's default filter returns: the k of its one "ret #k".
func defaultClass(t *testing.T, tree tctree.Tree) uint32 {
	t.Helper()
	for _, o := range tree.Objects {
		if o.Kind != tctree.Filter || o.Parent != htbRoot() || o.Type != "bpf" {
			continue
		}
		attrs, err := nestedAttrs(o.Options)
		if err != nil {
			t.Fatal(err)
		}
		if ops := attrs[5]; len(ops) == 8 { // TCA_BPF_OPS: one struct sock_filter
			return binary.NativeEndian.Uint32(ops[4:])
		}
	}
	t.Fatalf("no default filter in %+v", tree.Objects)
	return 0
}

func nestedAttrs(b []byte) (map[uint16][]byte, error) {
	out := map[uint16][]byte{}
	for len(b) >= 4 {
		n := int(binary.NativeEndian.Uint16(b))
		if n < 4 || n > len(b) {
			return nil, errors.New("bad attribute")
		}
		out[binary.NativeEndian.Uint16(b[2:])&0x3fff] = b[4:n]
		b = b[min((n+3)&^3, len(b)):]
	}
	return out, nil
}

// TestPlanEgress: the tree's arithmetic, without a kernel.
func TestPlanEgress(t *testing.T) {
	d := config.Default()
	d.Model = model.Config{Hosts: 2, Rate: 100e6, Packet: 1538, Mesochronous: 2,
		Factors: model.Factors{7: model.Limited(1), 5: model.Limited(3), 0: model.Unlimited()}}
	d.Mode = config.Shape
	dev := egressDevice{Name: "eth0", MTU: 1500, TxQueueLen: 1000, Speed: 10e9}
	p, err := planEgress(d, dev)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rcap != 100e6 || !p.Caps || p.Frame != 1514 {
		t.Fatalf("plan %+v: want a cap at R = 100Mb/s and 1514-byte frames", p)
	}
	// Level 7: bucket max((m−1)·f·P, one frame) = 1538 wire bytes, 1514 of packet.
	if l := p.Levels[7]; l.Kind != leafShaper || l.MaxSize != 1514 || l.Rate != uint64(d.Model.LevelRate(model.Limited(1))/8+1) && l.Rate != uint64(d.Model.LevelRate(model.Limited(1))/8) {
		t.Errorf("level 7: %+v", l)
	}
	if l := p.Levels[5]; l.Kind != leafShaper || l.MaxSize != 3*1538-24 {
		t.Errorf("level 5: %+v, want a bucket of (m−1)·f·P = %d wire bytes", l, 3*1538)
	}
	if l := p.Levels[0]; l.Kind != leafSegmenter || l.MaxSize != 1514 {
		t.Errorf("level 0: %+v, want a one-frame segmenter under a capping root", l)
	}
	// A bucket no TBF holds, one more byte of packet than model.MaxShapedBucket. The model's
	// validation refuses it first; the plan, given it unvalidated, must refuse it as well.
	huge := d
	huge.Model.Factors = model.Factors{7: model.Limited(float64(model.MaxShapedBucket + 1 + 24)), 0: model.Unlimited()}
	huge.Model.Packet, huge.Model.Hosts = 1, 1e10 // E = 16 s: the level runs at 1 Gb/s, below R, so it is shaped
	if _, err := planEgress(huge, dev); err == nil || !strings.Contains(err.Error(), "more than a TBF holds") {
		t.Errorf("a bucket of MaxShapedBucket+1 bytes of packet: %v, want refused", err)
	}
	huge.Model.Factors[7] = model.Limited(float64(model.MaxShapedBucket + 24))
	if _, err := planEgress(huge, dev); err != nil {
		t.Errorf("a bucket of MaxShapedBucket bytes of packet: %v, want planned", err)
	}
	d.Mode = config.Police
	if p, _ = planEgress(d, dev); p.Levels[7].Kind != leafSegmenter {
		t.Errorf("police level 7: %+v, want a segmenter (the program polices)", p.Levels[7])
	}
	if p, _ = planEgress(d, dev); p.RootBurst != 2*1538 {
		t.Errorf("capping root at 100Mb/s: burst %d, want two frames (%d B), more than its 200 µs", p.RootBurst, 2*1538)
	}
	d.Model.Rate = 40e9
	if p, _ = planEgress(d, dev); p.Caps || p.Rcap != 10e9 || p.Levels[0].Kind != leafFIFO {
		t.Errorf("R above the speed: %+v, want the root at the device's 10Gb/s and FIFOs", p)
	}
	// FIFO leaves pass GSO packets whole: the root's bucket, which the levels' ceilings share,
	// holds one (or 200 µs at Rcap, if more), so that HTB never waits out a debt per packet.
	if p.RootBurst != 250000 {
		t.Errorf("root at 10Gb/s: burst %d, want 200 µs (250000 B), more than a 64 kB GSO packet", p.RootBurst)
	}
	bigTCP := dev
	bigTCP.Speed, bigTCP.GSOMaxSize = 1e9, 196608
	if p, _ = planEgress(d, bigTCP); p.Caps || p.RootBurst != 196608+24 {
		t.Errorf("root at a 1Gb/s device with gso_max_size 196608: burst %d, want one GSO packet on the wire (%d B)", p.RootBurst, 196608+24)
	}
	if p, _ = planEgress(d, egressDevice{Name: "eth0", MTU: 1500, TxQueueLen: 1000, Speed: 1e9}); p.RootBurst != 65536+24 {
		t.Errorf("root at a 1Gb/s device that does not say its gso_max_size: burst %d, want 64 kB + 24", p.RootBurst)
	}
	dev.Speed = 0
	if p, _ = planEgress(d, dev); !p.Caps || p.Rcap != 40e9 {
		t.Errorf("unknown speed: %+v, want the root at R", p)
	}
}

// htbParms reads back the TCA_HTB_PARMS of an HTB class object.
func htbParms(t *testing.T, o tcObject) *nl.TcHtbCopt {
	t.Helper()
	attrs, err := nl.ParseRouteAttr(o.options)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attrs {
		if a.Attr.Type == nl.TCA_HTB_PARMS {
			return nl.DeserializeTcHtbCopt(a.Value)
		}
	}
	t.Fatalf("class %x has no TCA_HTB_PARMS", o.handle)
	return nil
}

// Every level's ceiling has the root's bucket, not one of its own: a level may send whenever the
// root may, so a GSO packet larger than a frame does not stop its level while lower ones go on.
func TestLevelCeilingsShareTheRootsBucket(t *testing.T) {
	d := config.Default()
	d.Model.Hosts, d.Model.Rate = 2, 40e9
	for _, dev := range []egressDevice{
		{Name: "eth0", MTU: 1500, TxQueueLen: 1000, Speed: 10e9},                    // root at the speed, FIFO leaves
		{Name: "eth0", MTU: 1500, TxQueueLen: 1000, Speed: 100e9},                   // root capping at R, segmenters
		{Name: "eth0", MTU: 9000, TxQueueLen: 1000, Speed: 1e9, GSOMaxSize: 196608}, // BIG TCP at 1 Gb/s
	} {
		p, err := planEgress(d, dev)
		if err != nil {
			t.Fatal(err)
		}
		root := htbParms(t, p.rootClass())
		for l := range model.NumLevels {
			c := htbParms(t, p.levelClass(l))
			if c.Ceil.Rate != root.Rate.Rate || c.Cbuffer != root.Buffer {
				t.Errorf("%+v: level %d ceiling %d B/s with a bucket of %d ticks, want the root's %d B/s and %d ticks",
					dev, l, c.Ceil.Rate, c.Cbuffer, root.Rate.Rate, root.Buffer)
			}
		}
	}
}
