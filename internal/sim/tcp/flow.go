// Package tcp holds the simulator's transports: a TCP sender and receiver (NewReno, the baseline
// of the pFabric paper), and the variants DCTCP and pFabric, which override only the parts of
// TCP's congestion control that differ (Control). Sequence numbers count packets, not bytes.
package tcp

import "github.com/qjump-net/qjump/internal/sim"

// Flow is one transfer: what the workload asked for and when it completed.
type Flow struct {
	ID       int32
	Src, Dst int
	Size     int64 // payload bytes
	Packets  int32
	Level    uint8 // QJump level (0 for the other schemes)
	Start    sim.Time
	Finish   sim.Time // when the receiver had every byte; 0 while running
	Timeouts int32
}

// Done says whether the receiver has every byte.
func (f *Flow) Done() bool { return f.Finish != 0 }

// FCT is the flow completion time.
func (f *Flow) FCT() sim.Time { return f.Finish - f.Start }

// Packet sizes on the wire (ns-2's TCP: 1460-byte payloads and 40-byte headers, as in the pFabric
// and QJump simulations; ACKs are bare headers).
const (
	MSS     = 1460
	Header  = 40
	AckSize = 40
)

// PacketsFor is the number of packets a payload of size bytes needs (at least one).
func PacketsFor(size int64) int32 {
	if size <= 0 {
		return 1
	}
	return int32((size + MSS - 1) / MSS)
}

// WireSize is the size on the wire of packet seq of a flow of size bytes.
func WireSize(size int64, seq int32) int32 {
	n := PacketsFor(size)
	if seq < n-1 || size%MSS == 0 {
		return MSS + Header
	}
	return int32(size%MSS) + Header
}
