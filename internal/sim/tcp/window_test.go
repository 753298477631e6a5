package tcp

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

// senderIntoTheVoid is a NewReno sender of a flow of packets whose packets go nowhere, for tests
// that set its state and call its handlers directly.
func senderIntoTheVoid(packets, initCwnd int32) *Sender {
	el, pool := sim.NewEventList(), &sim.PacketPool{}
	f := &Flow{ID: 1, Size: int64(packets) * MSS, Packets: packets}
	cfg := Config{InitCwnd: initCwnd, MinRTO: sim.Millisecond, MaxRTO: sim.Second, FastRetransmit: true}
	return NewSender(el, pool, &cfg, Reno{}, f, sim.Route{sinkFunc(func(p *sim.Packet) { pool.Put(p) })})
}

// lossesBy are the two ways a sender learns of a loss, as ssthreshAfterLoss tells it.
var lossesBy = []string{"three duplicate ACKs", "a timeout"}

// ssthreshAfterLoss is the slow-start threshold of a sender at window cwnd, with packets
// outstanding beyond una, after it learns of a loss at una by three duplicate ACKs or by its timer.
func ssthreshAfterLoss(by string, cwnd float64, outstanding int32) float64 {
	s := senderIntoTheVoid(2000, 12)
	s.una, s.cwnd, s.ssthresh = 100, cwnd, 50
	s.nxt, s.high = s.una+outstanding, s.una+outstanding
	if by == "a timeout" {
		s.timeout()
	} else {
		for range 3 {
			s.dupAck()
		}
	}
	return s.ssthresh
}

// A loss halves the window, not the packets outstanding. After a long recovery without SACK, a
// sender may have sent far beyond its first hole (here 1,400 packets past una, most of them held
// by the receiver) while its window is 96; halving those would set ssthresh to 700, and the next
// recovery would end in a burst of that size.
func TestLossHalvesTheWindowNotWhatIsOutstanding(t *testing.T) {
	for _, lossBy := range lossesBy {
		if got := ssthreshAfterLoss(lossBy, 96, 1400); got != 48 {
			t.Errorf("after %s with a window of 96 and 1,400 packets outstanding: ssthresh %.1f, want 48", lossBy, got)
		}
	}
}

// The window grows per ACK, not per packet acknowledged: the ACK that fills a hole and covers the
// 49 packets the receiver held beyond it adds one packet in slow start, and counts as one of the
// cwnd ACKs after which congestion avoidance adds one whole packet, as RFC 5681 and ns-2's agents
// (opencwnd, with the pFabric scripts' windowOption_ 0) have it.
func TestWindowGrowsPerACKNotPerPacketAcknowledged(t *testing.T) {
	s := senderIntoTheVoid(200, 10)
	s.nxt, s.high = 60, 60
	s.newAck(50, false)
	if s.cwnd != 11 {
		t.Errorf("slow start: one ACK of 50 packets took the window from 10 to %.2f, want 11", s.cwnd)
	}

	s = senderIntoTheVoid(200, 10)
	s.nxt, s.high, s.ssthresh = 60, 60, 5
	s.newAck(50, false)
	for ack := int32(51); ack <= 59; ack++ {
		if s.cwnd != 10 {
			t.Fatalf("congestion avoidance: the window grew to %.2f before the tenth ACK at a window of 10 (%d ACKs, the first of 50 packets)",
				s.cwnd, ack-50)
		}
		s.newAck(ack, false)
	}
	if s.cwnd != 11 {
		t.Errorf("congestion avoidance: ten ACKs at a window of 10, the first of 50 packets, took it to %.2f, want 11", s.cwnd)
	}
}

// ssthresh is a whole number of packets, as ns-2's (an int: tcp.h, slowdown): a loss at a window of
// 97.5 sets it to 48, and DCTCP's cut to 17.5 packets sets it to 17 with the window at 17.5. A
// reduction also starts congestion avoidance's count of ACKs afresh (slowdown's count_ = 0).
func TestThresholdIsWholePackets(t *testing.T) {
	for _, lossBy := range lossesBy {
		if got := ssthreshAfterLoss(lossBy, 97.5, 200); got != 48 {
			t.Errorf("after %s at a window of 97.5: ssthresh %.2f, want 48", lossBy, got)
		}
	}

	s := senderIntoTheVoid(200, 10)
	s.SetCwnd(17.5)
	if s.cwnd != 17.5 || s.ssthresh != 17 {
		t.Errorf("DCTCP's cut to 17.5: cwnd %.2f and ssthresh %.2f, want 17.5 and 17", s.cwnd, s.ssthresh)
	}
	s.SetCwnd(0.6)
	if s.cwnd != 1 || s.ssthresh != 2 {
		t.Errorf("DCTCP's cut to 0.6: cwnd %.2f and ssthresh %.2f, want 1 and 2 (ns-2's floors)", s.cwnd, s.ssthresh)
	}

	s = senderIntoTheVoid(200, 10)
	s.nxt, s.high, s.ssthresh = 60, 60, 5
	for ack := int32(1); ack <= 9; ack++ {
		s.newAck(ack, false) // nine of the ten ACKs a window of 10 needs to grow
	}
	s.SetCwnd(10)
	s.newAck(10, false)
	if s.cwnd != 10 {
		t.Errorf("the first ACK after a cut to 10 grew the window to %.2f: the ACKs before the cut were still counted", s.cwnd)
	}
}

// A fractional window sends its whole packets only: 12 out at a cwnd of 12.9, as ns-2's agents
// send up to (int)cwnd_; never fewer than one.
func TestFractionalWindowRoundsDown(t *testing.T) {
	for _, c := range []struct {
		cwnd float64
		want int32
	}{{12.9, 12}, {12, 12}, {0.5, 1}} {
		s := senderIntoTheVoid(100, 1)
		s.cwnd = c.cwnd
		s.send()
		if s.flight() != c.want {
			t.Errorf("cwnd %.1f: %d packets out, want %d", c.cwnd, s.flight(), c.want)
		}
	}
}
