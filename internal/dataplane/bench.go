package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/stats"
)

// ProgramCost is what one packet costs each program under BPF_PROG_TEST_RUN, in nanoseconds:
// the median over rounds, the three programs measured in turn within each round.
type ProgramCost struct {
	EmptyNs float64 `json:"empty_ns"` // a program that returns at once: the test harness itself
	ClockNs float64 `json:"clock_ns"` // a program that only reads bpf_ktime_get_ns: QJump's floor
	QJumpNs float64 `json:"qjump_ns"` // QJump on a limited level: classify, charge, mark, count
	Ratio   float64 `json:"ratio_to_clock"`
	Repeat  int     `json:"repeat"`
	Rounds  int     `json:"rounds"`
}

// BenchProgram measures QJump's per-packet cost beside its two floors. The packet is a 64-byte
// UDP/IPv4 frame on a limited level whose budget never runs out during the run, so every packet
// is charged (a compare-and-swap) and counted. BPF_PROG_TEST_RUN repeats one skb, so after the first
// run the DSCP mark is already right and is not rewritten again.
func BenchProgram(repeat, rounds int) (ProgramCost, error) {
	res := ProgramCost{Repeat: repeat, Rounds: rounds}
	objs, err := loadObjects("")
	if err != nil {
		return res, err
	}
	defer objs.Close()
	if err := installConfig(objs.Config, encode(benchConfig(), 1, [model.NumLevels]uint32{}, 1)); err != nil {
		return res, err
	}
	var floors floorObjects
	if err := loadFloorObjects(&floors, nil); err != nil {
		return res, err
	}
	defer floors.Close()
	progs := []*ebpf.Program{floors.FloorEmpty, floors.FloorClock, objs.QjumpEgress}
	samples := make([][]float64, len(progs))
	frame := benchFrame()
	for r := 0; r < rounds; r++ {
		for i, p := range progs {
			verdict, d, err := p.Benchmark(frame, repeat, nil)
			if err != nil {
				return res, err
			}
			if p == objs.QjumpEgress && verdict != uint32(qjumpQjTcVerdictQJ_TC_NEXT) {
				return res, fmt.Errorf("benchmark qjump: verdict %#x, want pass (TCX_NEXT): the figure would not be the sent path", verdict)
			}
			samples[i] = append(samples[i], float64(d.Nanoseconds()))
		}
	}
	if err := checkBenchPath(objs.Counters, uint64(repeat)*uint64(rounds)); err != nil {
		return res, err
	}
	res.EmptyNs, res.ClockNs, res.QJumpNs = stats.Median(samples[0]), stats.Median(samples[1]), stats.Median(samples[2])
	res.Ratio = res.QJumpNs / res.ClockNs
	return res, nil
}

// checkBenchPath makes sure the measured packets took the path the figure claims: every one sent
// on level 5, charged to its budget, none dropped. A broken configuration would otherwise have the
// docs quote the cost of the drop path. At least, not exactly, packets: cilium/ebpf restarts a run
// that a signal interrupts, which runs some packets twice.
func checkBenchPath(counters *ebpf.Map, packets uint64) error {
	c, err := readCounters(counters)
	if err != nil {
		return err
	}
	if l5 := c[5]; l5.SentPackets < packets || l5.DroppedPackets != 0 {
		return fmt.Errorf("benchmark qjump: level 5 sent %d and dropped %d of %d packets, want all sent",
			l5.SentPackets, l5.DroppedPackets, packets)
	}
	return nil
}

// benchConfig: every packet (priority 0, so the default level) lands on level 5, whose budget of
// 10⁷·P per 24 s epoch cannot run out during a benchmark.
func benchConfig() config.Dataplane {
	d := config.Default()
	d.Model.Hosts, d.Model.Rate = 1, 1000
	d.Model.Factors = model.Factors{5: model.Limited(1e7), 0: model.Unlimited()}
	d.DefaultLevel = 5
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
