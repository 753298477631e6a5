package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/model"
)

// Counters is what happened to the packets classified at one level, summed over CPUs, one pair
// per reason (enum qj_verdict in bpf/qjump.h), and in shape mode what the level's shaper held
// back (its qdisc's statistics: packets only). Bytes are wire bytes, what a budget is charged
// (docs/model.md). The field names are `qjump status --json`'s.
type Counters struct {
	SentPackets      uint64 `json:"sent_packets"`
	SentBytes        uint64 `json:"sent_bytes"`
	DroppedPackets   uint64 `json:"dropped_packets"` // police: over budget, not demoted
	DroppedBytes     uint64 `json:"dropped_bytes"`
	DemotedPackets   uint64 `json:"demoted_packets"` // police + autoclass: sent on a lower level
	DemotedBytes     uint64 `json:"demoted_bytes"`
	ShapedPackets    uint64 `json:"shaped_packets"` // shape: times the level's shaper held a packet back
	ShapedBytes      uint64 `json:"shaped_bytes"`
	OversizePackets  uint64 `json:"oversize_packets"` // police: larger than the whole budget, dropped
	OversizeBytes    uint64 `json:"oversize_bytes"`
	ContendedPackets uint64 `json:"contended_packets"` // police: lost every charge race, dropped
	ContendedBytes   uint64 `json:"contended_bytes"`
	NoLevelPackets   uint64 `json:"no_level_packets"` // cgroup ceiling below every configured level, dropped
	NoLevelBytes     uint64 `json:"no_level_bytes"`
	// Passed untouched because the program had no configuration; counted at level 0.
	UnconfiguredPackets uint64 `json:"unconfigured_packets"`
	UnconfiguredBytes   uint64 `json:"unconfigured_bytes"`
	NotIPPackets        uint64 `json:"not_ip_packets"` // ARP, LLDP, LACP, STP...: never marked
	NotIPBytes          uint64 `json:"not_ip_bytes"`
	MalformedPackets    uint64 `json:"malformed_packets"` // bad headers: never marked
	MalformedBytes      uint64 `json:"malformed_bytes"`
}

// Dropped is every packet the program dropped at the level, whatever the reason.
func (c Counters) Dropped() uint64 {
	return c.DroppedPackets + c.OversizePackets + c.ContendedPackets + c.NoLevelPackets
}

// tally names the Counters fields that total one verdict of enum qj_verdict (bpf/qjump.h).
type tally func(*Counters) (packets, bytes *uint64)

// tallies has one entry per verdict: a verdict added to qjump.h needs its line here (a test
// checks that none is missing).
var tallies = [qjumpQjVerdictQJ_VERDICTS]tally{
	qjumpQjVerdictQJ_SENT:         func(c *Counters) (*uint64, *uint64) { return &c.SentPackets, &c.SentBytes },
	qjumpQjVerdictQJ_DROPPED:      func(c *Counters) (*uint64, *uint64) { return &c.DroppedPackets, &c.DroppedBytes },
	qjumpQjVerdictQJ_DEMOTED:      func(c *Counters) (*uint64, *uint64) { return &c.DemotedPackets, &c.DemotedBytes },
	qjumpQjVerdictQJ_OVERSIZE:     func(c *Counters) (*uint64, *uint64) { return &c.OversizePackets, &c.OversizeBytes },
	qjumpQjVerdictQJ_CONTENDED:    func(c *Counters) (*uint64, *uint64) { return &c.ContendedPackets, &c.ContendedBytes },
	qjumpQjVerdictQJ_NO_LEVEL:     func(c *Counters) (*uint64, *uint64) { return &c.NoLevelPackets, &c.NoLevelBytes },
	qjumpQjVerdictQJ_UNCONFIGURED: func(c *Counters) (*uint64, *uint64) { return &c.UnconfiguredPackets, &c.UnconfiguredBytes },
	qjumpQjVerdictQJ_NOT_IP:       func(c *Counters) (*uint64, *uint64) { return &c.NotIPPackets, &c.NotIPBytes },
	qjumpQjVerdictQJ_MALFORMED:    func(c *Counters) (*uint64, *uint64) { return &c.MalformedPackets, &c.MalformedBytes },
}

// add adds one CPU's counters of a level to c.
func (c *Counters) add(cpu qjumpQjCounters) {
	for v, t := range tallies {
		packets, bytes := t(c)
		*packets, *bytes = *packets+cpu.Verdict[v].Packets, *bytes+cpu.Verdict[v].Bytes
	}
}

// readCounters sums the per-CPU counters of every level.
func readCounters(m *ebpf.Map) ([model.NumLevels]Counters, error) {
	var out [model.NumLevels]Counters
	for l := range model.NumLevels {
		var perCPU []qjumpQjCounters
		if err := m.Lookup(uint32(l), &perCPU); err != nil {
			return out, fmt.Errorf("read counters of level %d: %w", l, err)
		}
		for _, c := range perCPU {
			out[l].add(c)
		}
	}
	return out, nil
}
