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

// A loss halves the window, not the packets outstanding. After a long recovery without SACK, a
// sender may have sent far beyond its first hole (here 1,400 packets past una, most of them held
// by the receiver) while its window is 96; halving those would set ssthresh to 700, and the next
// recovery would end in a burst of that size.
func TestLossHalvesTheWindowNotWhatIsOutstanding(t *testing.T) {
	for _, lossBy := range []string{"three duplicate ACKs", "a timeout"} {
		s := senderIntoTheVoid(2000, 12)
		s.una, s.nxt, s.high, s.cwnd, s.ssthresh = 100, 1500, 1500, 96, 50
		if lossBy == "a timeout" {
			s.timeout()
		} else {
			for range 3 {
				s.dupAck()
			}
		}
		if s.ssthresh != 48 {
			t.Errorf("after %s with a window of 96 and 1,400 packets outstanding: ssthresh %.1f, want 48",
				lossBy, s.ssthresh)
		}
	}
}

// The window grows per ACK, not per packet acknowledged: the ACK that fills a hole and covers the
// 49 packets the receiver held beyond it adds one packet in slow start (and 1/cwnd in congestion
// avoidance), as RFC 5681 and ns-2's agents have it.
func TestWindowGrowsPerACKNotPerPacketAcknowledged(t *testing.T) {
	for _, phase := range []struct {
		name           string
		ssthresh, want float64
	}{{"slow start", 1000, 11}, {"congestion avoidance", 5, 10.1}} {
		s := senderIntoTheVoid(200, 10)
		s.nxt, s.high, s.ssthresh = 60, 60, phase.ssthresh
		s.newAck(50, false)
		if s.cwnd != phase.want {
			t.Errorf("%s: one ACK of 50 packets took the window from 10 to %.2f, want %.2f",
				phase.name, s.cwnd, phase.want)
		}
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
