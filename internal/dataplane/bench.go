package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/stats"
)

// ProgramCost is what one packet costs each program under BPF_PROG_TEST_RUN, in nanoseconds:
// the median over rounds of each round's mean over its fastest 90% of packets. The kernel times a
// run in steps of about 10 ns here, so a median would move in those steps; the mean of many runs
// resolves a nanosecond, and leaving out the slowest tenth keeps interrupts out of it.
type ProgramCost struct {
	EmptyNs float64 `json:"empty_ns"` // a program that returns at once: the test harness itself
	ClockNs float64 `json:"clock_ns"` // a program that only reads bpf_ktime_get_ns: QJump's floor
	QJumpNs float64 `json:"qjump_ns"` // QJump, police mode, limited level: classify, charge, mark, count
	// The same packet in shape mode, where the program charges no budget (the shaper does) and so
	// reads no clock.
	ShapeNs float64 `json:"qjump_shape_ns"`
	// The same packet in police mode on an unlimited level, as bulk traffic at level 0 is by
	// default: classified, marked and counted, never charged, and no clock read.
	UnlimitedNs float64 `json:"qjump_unlimited_ns"`
	// Police mode with a cgroup ceiling set (above the packet's level), so the program walks the
	// socket's cgroup ancestors; nil (null) where this process's cgroup can have none, which
	// CeilingSkipped says why.
	CeilingNs *float64 `json:"qjump_ceiling_ns"`
	// CeilingSkipped is why CeilingNs was not measured: no ceiling could be set for this process's
	// cgroup (under ip netns exec, which mounts a sysfs of its own, no cgroup hierarchy is
	// mounted). Absent when it was measured.
	CeilingSkipped string  `json:"qjump_ceiling_skipped,omitempty"`
	Ratio          float64 `json:"ratio_to_clock"` // QJumpNs / ClockNs
	Packets        int     `json:"packets"`        // per program per round, each its own BPF_PROG_TEST_RUN
	Rounds         int     `json:"rounds"`
}

// BenchProgram measures QJump's per-packet cost beside its two floors. Every packet is its own
// BPF_PROG_TEST_RUN (repeat 1), for every program alike: the kernel builds a fresh skb from the
// frame each time, so QJump rewrites its DSCP mark on every packet, as it does on real traffic
// (a repeated skb would keep the mark of its first run). The frame is a 64-byte UDP/IPv4 frame on
// a limited level whose budget never runs out during the run, so every packet is charged (a
// compare-and-swap) and counted. The programs take turns packet by packet, so that anything else
// the machine does falls on all of them alike.
func BenchProgram(packets, rounds int) (ProgramCost, error) {
	res := ProgramCost{Packets: packets, Rounds: rounds}
	var floors floorObjects
	if err := loadFloorObjects(&floors, nil); err != nil {
		return res, err
	}
	defer floors.Close()
	police, err := benchObjects(config.Police, benchLevel)
	if err != nil {
		return res, err
	}
	defer police.Close()
	shape, err := benchObjects(config.Shape, benchLevel)
	if err != nil {
		return res, err
	}
	defer shape.Close()
	unlimited, err := benchObjects(config.Police, 0)
	if err != nil {
		return res, err
	}
	defer unlimited.Close()
	ceiling, err := benchObjects(config.Police, benchLevel)
	if err != nil {
		return res, err
	}
	defer ceiling.Close()
	progs := []*ebpf.Program{floors.FloorEmpty, floors.FloorClock, police.QjumpEgress, shape.QjumpEgress, unlimited.QjumpEgress}
	if err := benchCeiling(ceiling); err != nil {
		res.CeilingSkipped = fmt.Sprintf("no cgroup ceiling can be set for this process's cgroup: %v", err)
	} else {
		progs = append(progs, ceiling.QjumpEgress)
	}
	medians, err := runInTurns(progs, packets, rounds)
	if err != nil {
		return res, err
	}
	sent := uint64(packets) * uint64(rounds)
	for _, c := range []struct {
		objs  *qjumpObjects
		level model.Level
	}{{police, benchLevel}, {shape, benchLevel}, {unlimited, 0}} {
		if err := checkBenchPath(c.objs.Counters, c.level, sent); err != nil {
			return res, err
		}
	}
	res.EmptyNs, res.ClockNs, res.QJumpNs, res.ShapeNs, res.UnlimitedNs = medians[0], medians[1], medians[2], medians[3], medians[4]
	if len(medians) > 5 {
		res.CeilingNs = &medians[5]
	}
	res.Ratio = res.QJumpNs / res.ClockNs
	return res, nil
}

// runInTurns runs each program on a fresh copy of the bench frame, packet by packet in turn, and
// returns each program's median over rounds of its per-round fast mean.
func runInTurns(progs []*ebpf.Program, packets, rounds int) ([]float64, error) {
	frame := benchFrame()
	perRound := make([][]float64, len(progs))
	for r := 0; r < rounds; r++ {
		samples := make([][]float64, len(progs))
		for n := 0; n < packets; n++ {
			for i, p := range progs {
				verdict, d, err := p.Benchmark(frame, 1, nil)
				if err != nil {
					return nil, err
				}
				if verdict != tcReturn(qjumpQjTcVerdictQJ_TC_NEXT) {
					return nil, fmt.Errorf("benchmark program %d: verdict %#x, want pass (TCX_NEXT): the figure would not be the sent path", i, verdict)
				}
				samples[i] = append(samples[i], float64(d.Nanoseconds()))
			}
		}
		for i := range progs {
			perRound[i] = append(perRound[i], fastMean(samples[i]))
		}
	}
	out := make([]float64, len(progs))
	for i := range progs {
		out[i] = stats.Median(perRound[i])
	}
	return out, nil
}

// fastMean is the mean of the fastest 90% of xs.
func fastMean(xs []float64) float64 {
	sorted := stats.Sorted(xs)
	return stats.Mean(sorted[:max(1, len(sorted)*9/10)])
}

// benchObjects loads a private copy of the program with the bench configuration in mode, the
// bench's packets going to level (benchLevel, limited, or 0, unlimited).
func benchObjects(mode config.Mode, level model.Level) (*qjumpObjects, error) {
	d := benchConfig()
	d.Mode = mode
	d.DefaultLevel = level
	var classids [model.NumLevels]uint32
	if mode == config.Shape {
		classids = htbClassIDs()
	}
	return loadObjects("", encode(d, 1, classids), nil)
}

// benchCeiling gives this process's cgroup (where BPF_PROG_TEST_RUN puts the packet's socket) a
// ceiling of 7 in the objects' private maps: the program walks to it and finds nothing to clamp.
func benchCeiling(objs *qjumpObjects) error {
	path, err := host.OwnCgroup()
	if err != nil {
		return err
	}
	id, err := host.CgroupID(path)
	if err != nil {
		return err
	}
	depth, err := host.CgroupDepth(path)
	if err != nil {
		return err
	}
	return putCeiling(objs.CgroupCeilings, objs.CeilingDepths, id, model.NumLevels-1, depth)
}

// checkBenchPath makes sure the measured packets took the path the figure claims: every one sent
// on level, none dropped. A broken configuration would otherwise have the docs quote the cost of
// the drop path. At least, not exactly, packets: cilium/ebpf restarts a run that a signal
// interrupts, which runs some packets twice.
func checkBenchPath(counters *ebpf.Map, level model.Level, packets uint64) error {
	c, err := readCounters(counters)
	if err != nil {
		return err
	}
	if l := c[level]; l.SentPackets < packets || l.DroppedPackets != 0 {
		return fmt.Errorf("benchmark qjump: level %d sent %d and dropped %d of %d packets, want all sent",
			level, l.SentPackets, l.DroppedPackets, packets)
	}
	return nil
}

// benchLevel is where the bench's packets are charged: limited, with a budget of 10⁷·P per 24 s
// epoch, which cannot run out during a benchmark. Level 0 is unlimited.
const benchLevel model.Level = 5

// benchConfig: every packet (priority 0, so the default level) lands on benchLevel.
func benchConfig() config.Dataplane {
	d := config.Default()
	d.Model.Hosts, d.Model.Rate = 1, 1000
	d.Model.Factors = model.Factors{benchLevel: model.Limited(1e7), 0: model.Unlimited()}
	d.DefaultLevel = benchLevel
	return d
}

// benchFrame is a minimum-size UDP/IPv4 Ethernet frame with a valid header checksum.
func benchFrame() []byte {
	f := make([]byte, 64)
	copy(f, []byte{0x02, 0, 0, 0, 0, 0xb, 0x02, 0, 0, 0, 0, 0xa, 0x08, 0x00})
	ip := f[14:34]
	ip[0], ip[3], ip[8], ip[9] = 0x45, 50, 64, 17
	copy(ip[12:], []byte{198, 18, 0, 1, 198, 18, 0, 2})
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(ip[i])<<8 | uint32(ip[i+1])
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	ip[10], ip[11] = byte(^sum>>8), byte(^sum)
	return f
}

// tcReturn is a TC verdict as a test run returns it, a uint32. bpf2go types the verdicts' enum
// after clang's BTF: unsigned from clang 14, int32 from clang 19, which records that QJ_TC_NEXT is
// -1. Converting the constant itself compiles for one of the two only (-1 overflows a uint32);
// converting a value of the type compiles and gives 0xffffffff for both.
func tcReturn(v qjumpQjTcVerdict) uint32 { return uint32(v) }
