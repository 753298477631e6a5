package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/model"
)

// Counters is what happened to the packets classified at one level, summed over CPUs.
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

// readCounters sums the per-CPU counters of every level.
func readCounters(m *ebpf.Map) ([model.NumLevels]Counters, error) {
	var out [model.NumLevels]Counters
	for l := range model.NumLevels {
		var perCPU []qjumpQjCounters
		if err := m.Lookup(uint32(l), &perCPU); err != nil {
			return out, fmt.Errorf("read counters of level %d: %w", l, err)
		}
		for _, c := range perCPU {
			s := &out[l]
			s.SentPackets += c.SentPackets
			s.SentBytes += c.SentBytes
			s.DroppedPackets += c.DroppedPackets
			s.DroppedBytes += c.DroppedBytes
			s.DemotedPackets += c.DemotedPackets
			s.DemotedBytes += c.DemotedBytes
			s.ShapedPackets += c.ShapedPackets
			s.ShapedBytes += c.ShapedBytes
			s.MalformedPackets += c.MalformedPackets
		}
	}
	return out, nil
}
