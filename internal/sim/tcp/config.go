package tcp

import "github.com/qjump-net/qjump/internal/sim"

// Config holds a transport's parameters.
type Config struct {
	InitCwnd       int32    // packets
	MinRTO         sim.Time // lower bound of the retransmission timeout
	MaxRTO         sim.Time // upper bound after exponential backoff
	FixedRTO       bool     // pFabric: the timeout never adapts or backs off
	FastRetransmit bool     // three duplicate ACKs trigger a retransmission (NewReno)
	// SACK: the sender learns from every ACK which packet the receiver got (a selective
	// acknowledgement of the packet the ACK answers) and keeps that scoreboard over timeouts, so
	// that it never sends again what the receiver holds (pFabric's hosts: ns-2's
	// SackFullTcp with clear_on_timeout_ false).
	SACK bool
	// MaxCwnd caps the window in packets; 0: no cap (pFabric's scripts: one packet under the
	// port's buffer, maxcwnd_).
	MaxCwnd int32
}

// Control is a congestion control: TCP's (Reno) and the variants that override parts of it.
type Control interface {
	// OnAck is called for every ACK that acknowledges new data outside loss recovery; ece is the
	// ACK's ECN echo.
	OnAck(s *Sender, ece bool)
	// OnEcho sees every ACK, duplicates included, before the sender acts on it.
	OnEcho(s *Sender, acked int32, ece bool)
	// Priority is the pFabric priority stamped on a data packet (0 for the others).
	Priority(s *Sender) int64
}

// Reno is TCP NewReno's window growth: slow start below ssthresh, then one packet per window.
type Reno struct{}

// OnAck grows the window.
func (Reno) OnAck(s *Sender, _ bool) { s.grow() }

// OnEcho does nothing for TCP.
func (Reno) OnEcho(*Sender, int32, bool) {}

// Priority is unused by TCP.
func (Reno) Priority(*Sender) int64 { return 0 }
