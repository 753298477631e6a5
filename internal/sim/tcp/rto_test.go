package tcp

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

// The retransmission timeout is estimated as in ns-2's agents, which the pFabric paper's TCP
// baseline ran: from one packet timed at a time, never from a retransmitted one (Karn), with the
// backoff of a timeout kept until a timed packet is acknowledged.

// noop is an event that does nothing, to move a test's clock.
type noop struct{}

func (noop) DoNextEvent() {}

// at runs s's event list to t.
func at(s *Sender, t sim.Time) {
	s.el.Schedule(t, noop{})
	s.el.Run(t)
}

// ack delivers to s a cumulative ACK of every packet before ackno.
func ack(s *Sender, ackno int32) {
	p := s.pool.Get()
	p.IsAck, p.AckNo, p.Seq = true, ackno, ackno-1
	s.Receive(p)
}

// One packet is timed at a time: the ACKs of the others in its window leave the estimate alone.
func TestOneRoundTripSampleAtATime(t *testing.T) {
	s := senderIntoTheVoid(100, 10)
	s.Start() // packets 0-9 at time 0; packet 0 timed
	at(s, 100*sim.Microsecond)
	ack(s, 1) // packet 0's round trip, 100 µs; packets 10 and 11 go out, 10 timed
	if s.srtt != 100*sim.Microsecond {
		t.Fatalf("after the first sample of 100 µs: srtt %v, want 100 µs", s.srtt)
	}
	at(s, 150*sim.Microsecond)
	ack(s, 2) // packet 1 was not timed
	if s.srtt != 100*sim.Microsecond {
		t.Errorf("the ACK of an untimed packet moved srtt to %v", s.srtt)
	}
	at(s, 300*sim.Microsecond)
	ack(s, 11) // packet 10's round trip, 200 µs
	if want := (7*100*sim.Microsecond + 200*sim.Microsecond) / 8; s.srtt != want {
		t.Errorf("after packet 10's round trip of 200 µs: srtt %v, want %v", s.srtt, want)
	}
}

// A timeout's backoff lasts until a packet sent after it, not a retransmission, is acknowledged:
// the ACK of a retransmitted packet cannot tell which copy it answers.
func TestBackoffKeptUntilATimedPacketIsAcknowledged(t *testing.T) {
	s := senderIntoTheVoid(100, 10) // minimum RTO 1 ms
	s.Start()
	at(s, 2*sim.Millisecond)
	s.timeout() // packet 0 again
	if s.rto != 2*sim.Millisecond {
		t.Fatalf("after a timeout: RTO %v, want 2 ms", s.rto)
	}
	at(s, 2*sim.Millisecond+50*sim.Microsecond)
	ack(s, 1) // answers the retransmission, or the first copy: no sample
	if s.rto != 2*sim.Millisecond || s.srtt != 0 {
		t.Errorf("the ACK of a retransmission: RTO %v and srtt %v, want the backoff kept (2 ms, no sample)",
			s.rto, s.srtt)
	}
	ack(s, 10) // packets 1-9, all retransmitted; new packets go out, the first of them timed
	if s.rto != 2*sim.Millisecond {
		t.Errorf("the ACKs of retransmissions ended the backoff: RTO %v, want 2 ms", s.rto)
	}
	at(s, 2*sim.Millisecond+100*sim.Microsecond)
	ack(s, 11) // packet 10, sent after the timeout at 2.05 ms
	if s.rto != sim.Millisecond || s.srtt != 50*sim.Microsecond {
		t.Errorf("after a timed packet's ACK: RTO %v and srtt %v, want 1 ms (no backoff) and 50 µs",
			s.rto, s.srtt)
	}
}

// After four timeouts in a row the smoothed RTT is forgotten (ns-2's rtt_backoff): the next
// sample starts the estimate afresh, and until then the timeout keeps growing from the old one.
func TestLongBackoffStartsTheEstimateAfresh(t *testing.T) {
	s := senderIntoTheVoid(100, 10)
	s.cfg.MinRTO = sim.Microsecond
	s.srtt, s.rttvar = 100*sim.Microsecond, 25*sim.Microsecond
	s.setRTO() // 200 µs
	for range 4 {
		s.timeout()
	}
	if s.rto != 16*200*sim.Microsecond || s.srtt != 0 {
		t.Fatalf("after four timeouts: RTO %v and srtt %v, want 3.2 ms and forgotten", s.rto, s.srtt)
	}
	s.nxt, s.high = 10, 10
	s.transmit(10) // a new packet, timed
	at(s, 50*sim.Microsecond)
	ack(s, 11)
	if s.srtt != 50*sim.Microsecond || s.rto != 150*sim.Microsecond {
		t.Errorf("the first sample after the backoff, 50 µs: srtt %v and RTO %v, want 50 µs and 150 µs",
			s.srtt, s.rto)
	}
}
