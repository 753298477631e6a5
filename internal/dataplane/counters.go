package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/model"
)

// Counters is what happened to the packets classified at one level, summed over CPUs. The field
// names are `qjump status --json`'s.
type Counters struct {
	SentPackets      uint64 `json:"sent_packets"`
	SentBytes        uint64 `json:"sent_bytes"`
	DroppedPackets   uint64 `json:"dropped_packets"` // police: over budget, not demoted
	DroppedBytes     uint64 `json:"dropped_bytes"`
	DemotedPackets   uint64 `json:"demoted_packets"` // police + autoclass: sent on a lower level
	DemotedBytes     uint64 `json:"demoted_bytes"`
	ShapedPackets    uint64 `json:"shaped_packets"` // shape: over budget, delayed by HTB
	ShapedBytes      uint64 `json:"shaped_bytes"`
	MalformedPackets uint64 `json:"malformed_packets"` // bad headers: sent unmodified
}

// tally names the Counters fields that total one verdict of enum qj_verdict (bpf/qjump.h).
type tally func(*Counters) (packets, bytes *uint64)

// tallies has one entry per verdict: a verdict added to qjump.h needs its line here (a test
// checks that none is missing).
var tallies = [qjumpQjVerdictQJ_VERDICTS]tally{
	qjumpQjVerdictQJ_SENT:    func(c *Counters) (*uint64, *uint64) { return &c.SentPackets, &c.SentBytes },
	qjumpQjVerdictQJ_DROPPED: func(c *Counters) (*uint64, *uint64) { return &c.DroppedPackets, &c.DroppedBytes },
	qjumpQjVerdictQJ_DEMOTED: func(c *Counters) (*uint64, *uint64) { return &c.DemotedPackets, &c.DemotedBytes },
	qjumpQjVerdictQJ_SHAPED:  func(c *Counters) (*uint64, *uint64) { return &c.ShapedPackets, &c.ShapedBytes },
}

// add adds one CPU's counters of a level to c.
func (c *Counters) add(cpu qjumpQjCounters) {
	for v, t := range tallies {
		packets, bytes := t(c)
		*packets, *bytes = *packets+cpu.Verdict[v].Packets, *bytes+cpu.Verdict[v].Bytes
	}
	c.MalformedPackets += cpu.MalformedPackets
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
