package qjump

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

// The object internal/dataplane embeds and loads, read from the source tree.
const dataplaneObject = "../../dataplane/qjump_bpfel.o"

const (
	verdictNext = 0xffffffff // TCX_NEXT (-1)
	verdictDrop = 2          // TCX_DROP
)

// skbContext is the head of struct __sk_buff that BPF_PROG_TEST_RUN lets a test set.
type skbContext struct {
	Len, PktType, Mark, QueueMapping, Protocol, VlanPresent, VlanTCI, VlanProto, Priority uint32
	Rest                                                                                  [192 - 36]byte
}

// The simulator's limiter and the dataplane's eBPF program give the same verdict for every packet
// of a sequence of random levels and sizes spread over many epochs. The program runs under
// BPF_PROG_TEST_RUN in police mode (over budget: drop) and reads the kernel's monotonic clock;
// the simulator's limiter is fed that clock, read before and after each run, and a run that
// straddles an epoch boundary is avoided by waiting out the last 2 ms of an epoch. A host so busy
// that a run stalls past that (2.4 ms was seen on a loaded 2-core VM) leaves the verdict's epoch
// unknown: the sequence starts again with a fresh program and limiter, up to three times.
func TestLimiterAgreesWithDataplane(t *testing.T) {
	testutil.RequirePriv(t, "loading the QJump eBPF program")
	const attempts = 3
	for a := 1; ; a++ {
		stall, ok := limiterAgreesWithDataplane(t)
		if ok {
			return
		}
		if a == attempts {
			t.Fatalf("every one of %d attempts had a run straddle an epoch boundary (the last a stall of %v): the host is too busy to compare", attempts, stall)
		}
		t.Logf("attempt %d: a run straddled an epoch boundary (a stall of %v); starting again", a, stall)
	}
}

// limiterAgreesWithDataplane runs the sequence once; false, with the stall, when a run straddled an
// epoch boundary, which leaves its verdict's epoch unknown.
func limiterAgreesWithDataplane(t *testing.T) (time.Duration, bool) {
	mc := testModel()
	prog, cleanup := loadDataplane(t, mc)
	defer cleanup()
	sim := NewLimiter(mc)
	e := sim.EpochNs()
	rng := rand.New(rand.NewPCG(10, 11))
	var limited, dropped int
	for i := 0; i < 400; i++ {
		if rng.IntN(25) == 0 {
			time.Sleep(time.Duration(rng.Int64N(e)))
		}
		if left := e - monotonicNs()%e; left < 2_000_000 {
			time.Sleep(time.Duration(left + 100_000))
		}
		level := rng.IntN(model.NumLevels)
		size := 64 + rng.IntN(1500-64+1)
		if c := sim.Carrier(level); rng.IntN(3) == 0 && sim.limited[c] && sim.epochEnd[c] > monotonicNs() {
			// Exactly what is left of the budget: the edge where used + wire bytes = B must pass.
			if left := sim.budget[c] - sim.used[c] - int64(model.FrameOverhead); left >= 64 && left <= 1500 {
				size = int(left)
			}
		}
		frame := udpFrame(size)
		before := monotonicNs()
		verdict := runProgram(t, prog, uint32(level), frame)
		after := monotonicNs()
		if before/e != after/e {
			return time.Duration(after - before), false
		}
		// Both count wire bytes (docs/model.md): the frame, padded, plus 24.
		want := sim.Charge(sim.Carrier(level), int64(model.WireBytes(model.Bytes(len(frame)))), before)
		if got := verdict == verdictNext; got != want || (verdict != verdictNext && verdict != verdictDrop) {
			t.Fatalf("packet %d (level %d, %d B, epoch %d): dataplane verdict %#x, simulator admits %v", i, level, len(frame), before/e, verdict, want)
		}
		if mc.Factors[model.Level(sim.Carrier(level))].Unlimited {
			continue
		}
		limited++
		if !want {
			dropped++
		}
	}
	if limited < 200 || dropped < 20 || dropped > limited-20 {
		t.Fatalf("%d limited packets, %d over budget: the sequence does not exercise both verdicts", limited, dropped)
	}
	return 0, true
}

func monotonicNs() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

func runProgram(t *testing.T, prog *ebpf.Program, prio uint32, frame []byte) uint32 {
	t.Helper()
	var out skbContext
	ret, err := prog.Run(&ebpf.RunOptions{Data: frame, Context: skbContext{Priority: prio}, ContextOut: &out})
	if err != nil {
		t.Fatalf("run program: %v", err)
	}
	return ret
}

// loadDataplane loads the dataplane's object with mc encoded the way internal/dataplane encodes
// it (police mode, skb->priority p → level p), laying struct qj_config out from the object's BTF.
func loadDataplane(t *testing.T, mc model.Config) (*ebpf.Program, func()) {
	t.Helper()
	spec, err := ebpf.LoadCollectionSpec(dataplaneObject)
	if err != nil {
		t.Fatalf("load %s: %v", dataplaneObject, err)
	}
	spec.Maps["cgroup_ceilings"].Pinning = ebpf.PinNone
	spec.Maps["ceiling_depths"].Pinning = ebpf.PinNone
	// The layout map carries struct qj_layout, whose member config is struct qj_config (qjump.h).
	layout := configLayout(t, spec)
	delete(spec.Maps, "layout")
	value := encodeConfig(t, layout, mc)
	// The configuration is the program's constants (its read-only global config).
	if err := spec.Variables["config"].Set(value); err != nil {
		t.Fatalf("set config: %v", err)
	}
	var objs struct {
		Prog *ebpf.Program `ebpf:"qjump_egress"`
	}
	if err := spec.LoadAndAssign(&objs, nil); err != nil {
		t.Fatalf("load program: %v", err)
	}
	return objs.Prog, func() { objs.Prog.Close() }
}

// encodeConfig fills struct qj_config by member name: E in ns from model.Epoch, generation 1,
// priorities 0..7 to levels 0..7, each level's carrier, and budget = model.Budget for limited
// levels, as internal/dataplane's encode does.
func encodeConfig(t *testing.T, s *btf.Struct, mc model.Config) []byte {
	buf := make([]byte, s.Size)
	field := func(name string) (uint32, btf.Type) {
		for _, m := range s.Members {
			if m.Name == name {
				return m.Offset.Bytes(), m.Type
			}
		}
		t.Fatalf("struct qj_config has no member %s", name)
		return 0, nil
	}
	off, _ := field("epoch_ns")
	binary.LittleEndian.PutUint64(buf[off:], uint64(mc.Epoch().Nanoseconds()))
	off, _ = field("generation")
	binary.LittleEndian.PutUint64(buf[off:], 1)
	off, _ = field("prio_level")
	for p := 0; p < 16; p++ {
		buf[off+uint32(p)] = 0xff
		if p < model.NumLevels {
			buf[off+uint32(p)] = byte(p)
		}
	}
	coff, _ := field("carrier")
	loff, ltype := field("level")
	arr, ok := btf.UnderlyingType(ltype).(*btf.Array)
	if !ok {
		t.Fatalf("qj_config.level is %v, not an array", ltype)
	}
	lvl := btf.UnderlyingType(arr.Type).(*btf.Struct)
	size, err := btf.Sizeof(lvl)
	if err != nil {
		t.Fatal(err)
	}
	member := func(name string) uint32 {
		for _, m := range lvl.Members {
			if m.Name == name {
				return m.Offset.Bytes()
			}
		}
		t.Fatalf("struct qj_level has no member %s", name)
		return 0
	}
	for l := 0; l < model.NumLevels; l++ {
		carrier, _ := mc.Factors.Carrier(model.Level(l))
		buf[coff+uint32(l)] = byte(carrier)
		base := loff + uint32(l*size)
		if f, ok := mc.Factors[model.Level(l)]; ok {
			if b, limited := mc.Budget(f); limited {
				binary.LittleEndian.PutUint64(buf[base+member("budget"):], uint64(b))
				buf[base+member("limited")] = 1
			}
		}
	}
	return buf
}

// udpFrame is an Ethernet/IPv4/UDP frame of size bytes with a valid IP header checksum.
func udpFrame(size int) []byte {
	f := make([]byte, size)
	copy(f, []byte{0x02, 0, 0, 0, 0, 0xb, 0x02, 0, 0, 0, 0, 0xa, 0x08, 0x00})
	ip := f[14:34]
	ip[0], ip[8], ip[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(ip[2:], uint16(size-14))
	copy(ip[12:], []byte{198, 18, 0, 1, 198, 18, 0, 2})
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
	binary.BigEndian.PutUint16(f[34+4:], uint16(size-34))
	return f
}

// configLayout is struct qj_config as the object's BTF lays it out.
func configLayout(t *testing.T, spec *ebpf.CollectionSpec) *btf.Struct {
	t.Helper()
	m, ok := spec.Maps["layout"]
	if !ok {
		t.Fatalf("%s has no layout map", dataplaneObject)
	}
	if outer, ok := m.Value.(*btf.Struct); ok {
		for _, member := range outer.Members {
			if c, ok := member.Type.(*btf.Struct); ok && member.Name == "config" {
				return c
			}
		}
	}
	t.Fatalf("the layout map has no struct qj_config member config in BTF")
	return nil
}
