package tcp

import (
	"math"

	"github.com/qjump-net/qjump/internal/sim"
)

// Sender is a flow's sending end: NewReno with fast retransmit and recovery (RFC 6582) and a
// retransmission timer with a minimum RTO, estimated as ns-2's agents estimate it without
// timestamps (RFC 6298's gains and Karn's rule, one packet timed at a time). Every ACK of new
// data restarts the timer, partial ones in a recovery included: the Slow-but-Steady variant of
// RFC 2582, which ns-2's FullTcp follows, where RFC 6582 and ns-2's one-way agent restart it on
// the first partial ACK only (the Impatient variant; docs/performance.md, "The ns-2 anchor"). On
// a timeout it goes back to the first unacknowledged packet; the receiver keeps what arrived out
// of order, so its cumulative ACK skips what it already has.
type Sender struct {
	el    *sim.EventList
	pool  *sim.PacketPool
	cfg   *Config
	cc    Control
	flow  *Flow
	route sim.Route

	una, nxt, high int32 // first unacknowledged, next to send, one past the highest sent
	dupacks        int32
	cwnd, ssthresh float64
	recover        int32
	// sackedAbove counts the packets beyond una the receiver is known to hold (Config.SACK).
	sackedAbove int32
	// Config.MaxCwnd and Config.SACK, copied beside what every ACK reads: reading them from the
	// shared Config instead counted 0.09 more L1 misses a hop at the TCP point.
	maxCwnd    int32 // 0: no cap
	inHost     int32 // packets of this flow not yet accepted or dropped by the host's NIC
	recovering bool
	done       bool
	useSACK    bool // Config.SACK, copied likewise
	// timerQueued says whether the timer has an event in the event list.
	timerQueued bool
	// The retransmission timeout is estimated as ns-2's TcpAgent does without timestamps (see
	// sampleRTT): from one packet timed at a time, never a retransmitted one (Karn), and
	// multiplied by 2^backoff after as many timeouts until a timed packet is acknowledged.
	backoff uint8
	timed   int32 // the packet being timed; -1: none (ns-2's rtt_active_ off)
	// count is the ACKs since the window last grew in congestion avoidance (ns-2's count_).
	count int32

	srtt, rttvar, rto sim.Time
	timedAt           sim.Time // when the timed packet was sent
	timerAt           sim.Time // the retransmission deadline; Never when off
	hostClear         sim.Time // when the last packet the NIC accepted leaves it
	// sacked holds, with SACK, a bit for each packet the receiver is known to hold, by sequence
	// number; nil until the first out-of-order ACK. A pointer, so that a sender stays within 192
	// bytes, three cache lines: at 224 the TCP point counted 0.15 more L1 misses a hop.
	sacked *seqSet
}

// NewSender prepares the sending end of flow over route (which ends at the receiver).
func NewSender(el *sim.EventList, pool *sim.PacketPool, cfg *Config, cc Control, flow *Flow, route sim.Route) *Sender {
	return &Sender{
		el: el, pool: pool, cfg: cfg, cc: cc, flow: flow, route: route,
		cwnd: float64(cfg.InitCwnd), ssthresh: 1 << 30, rto: cfg.MinRTO, timed: -1,
		timerAt: sim.Never,
		useSACK: cfg.SACK, maxCwnd: cfg.MaxCwnd,
	}
}

// Start sends the first window.
func (s *Sender) Start() {
	s.send()
	s.timerAt = s.el.Now() + s.rto
	s.armTimer()
}

// Flow is the flow this sender sends.
func (s *Sender) Flow() *Flow { return s.flow }

// Una is the first unacknowledged packet.
func (s *Sender) Una() int32 { return s.una }

// Next is the next packet to send.
func (s *Sender) Next() int32 { return s.nxt }

// Cwnd is the congestion window in packets.
func (s *Sender) Cwnd() float64 { return s.cwnd }

// SetCwnd cuts the window to w (at least 1) and ssthresh to w's whole packets (at least 2), as
// ns-2's slowdown does for DCTCP (CLOSE_CWND_DCTCP, CLOSE_SSTHRESH_DCTCP): for Control
// implementations.
func (s *Sender) SetCwnd(w float64) {
	s.reduce(max(math.Floor(w), 2), max(w, 1))
}

// reduce sets ssthresh and cwnd after a loss, a timeout or a mark, and restarts the count of
// congestion avoidance (ns-2's slowdown).
func (s *Sender) reduce(ssthresh, cwnd float64) {
	s.ssthresh, s.cwnd, s.count = ssthresh, cwnd, 0
}

// grow is TCP's window increase for an ACK of new data, up to the cap: one packet in slow start,
// and in congestion avoidance one whole packet once as many ACKs as the window holds have come,
// per ACK however many packets it acknowledges (ns-2's opencwnd with windowOption_ 0, which the
// pFabric paper's scripts set, and RFC 5681 §3.1's one packet per round trip). Counting the packets
// instead let the ACK that fills a hole after a loss grow the window by the hundreds of packets
// the receiver held beyond it. Adding 1/cwnd per ACK (ns-2's default, windowOption_ 1) grows
// about as fast but leaves the window fractional between whole packets.
func (s *Sender) grow() {
	if s.cwnd < s.ssthresh {
		s.cwnd++
	} else if s.count++; float64(s.count) >= s.cwnd {
		s.count = 0
		s.cwnd++
	}
	if s.maxCwnd > 0 && s.cwnd > float64(s.maxCwnd) {
		s.cwnd = float64(s.maxCwnd)
	}
}

func (s *Sender) flight() int32 { return s.nxt - s.una }

// send fills the window with new (or, after a timeout, resent) packets. A packet the receiver is
// known to hold (SACK) takes its place in the window but is not sent again, as in ns-2's SACK
// agents without pipe control.
func (s *Sender) send() {
	for s.nxt < s.flow.Packets && s.flight() < s.window() {
		if !s.isSacked(s.nxt) {
			s.transmit(s.nxt)
		}
		s.nxt++
		if s.nxt > s.high {
			s.high = s.nxt
		}
	}
}

func (s *Sender) transmit(seq int32) {
	p := s.pool.Get()
	p.Flow, p.Seq, p.Size = s.flow.ID, seq, WireSize(s.flow.Size, seq)
	p.Level, p.Origin = s.flow.Level, s
	p.Prio = s.cc.Priority(s)
	if seq >= s.high {
		if s.timed < 0 {
			s.timed, s.timedAt = seq, s.el.Now()
		}
	} else if seq <= s.timed {
		s.timed = -1 // its ACK may answer either copy (Karn)
	}
	s.inHost++
	p.SetRoute(s.route)
	p.SendOn()
}

// LeftHost: one fewer packet in the host's NIC queue from at on.
func (s *Sender) LeftHost(_ *sim.Packet, at sim.Time) {
	s.inHost--
	s.hostClear = max(s.hostClear, at)
}

// atHome says whether a packet of the flow is still in the host's NIC queue.
func (s *Sender) atHome() bool { return s.inHost > 0 || s.el.Now() < s.hostClear }

// Receive takes an ACK.
func (s *Sender) Receive(p *sim.Packet) {
	ackno, ece, seq := p.AckNo, p.ECE, p.Seq
	s.pool.Put(p)
	if s.done {
		return
	}
	if s.useSACK && seq >= ackno {
		s.sack(seq)
	}
	if ackno > s.una {
		s.newAck(ackno, ece)
	} else {
		s.cc.OnEcho(s, 0, ece)
		if ackno == s.una && s.nxt > s.una {
			s.dupAck()
		}
	}
	s.send()
}

func (s *Sender) newAck(ackno int32, ece bool) {
	acked := ackno - s.una
	s.forgetSacked(s.una, ackno)
	s.una = ackno
	if s.nxt < s.una {
		s.nxt = s.una
	}
	s.cc.OnEcho(s, acked, ece)
	if s.timed >= 0 && ackno > s.timed {
		s.timed = -1
		s.backoff = 0
		s.sampleRTT(s.el.Now() - s.timedAt)
	}
	s.dupacks = 0
	switch {
	case s.recovering && ackno >= s.recover:
		s.recovering = false
		s.cwnd = s.ssthresh
	case s.recovering:
		// A partial ACK: the next hole is lost too (NewReno); resend it and deflate.
		s.transmit(s.una)
		s.cwnd = max(s.cwnd-float64(acked)+1, 1)
	default:
		s.cc.OnAck(s, ece)
	}
	if s.una >= s.flow.Packets {
		s.done = true
		s.timerAt = sim.Never
		return
	}
	s.timerAt = s.el.Now() + s.rto
	s.armTimer()
}

func (s *Sender) dupAck() {
	if !s.cfg.FastRetransmit {
		return
	}
	s.dupacks++
	switch {
	case s.recovering:
		s.cwnd++ // each duplicate is a packet that left the network
	case s.dupacks == 3:
		half := s.halfWindow()
		s.reduce(half, half+3)
		s.recovering, s.recover = true, s.high
		s.transmit(s.una)
	}
}

// halfWindow is the slow-start threshold after a loss: half the congestion window's whole
// packets, at least 2, as ns-2's agents (tcp.cc, slowdown with CLOSE_SSTHRESH_HALF: the integer
// ssthresh_ = window()/2), which the pFabric and QJump simulations ran, and Linux's Reno
// (tcp_reno_ssthresh) set it. Not half of the packets outstanding (RFC 5681's FlightSize):
// without SACK those count every packet sent past a hole that the receiver already holds. Two
// 14.6 MB flows from one host of the paper's fabric showed it
// (bench/sim/dropped/two-flows-probe.patch): after a recovery of 10 ms one had 1,387 packets
// outstanding against a window of 96.5, and the recovery that followed ended in a burst of 693
// packets into its 150-packet NIC queue: 1,564 drops where ns-2 has 169, and 172 with the window
// halved.
func (s *Sender) halfWindow() float64 { return max(math.Floor(s.cwnd/2), 2) }

// sampleRTT updates the estimate from the round trip of the timed packet, as ns-2's rtt_update
// (RFC 6298's gains; ns-2 counts in ticks of tcpTick_, 1 µs in the pFabric scripts, and we in
// picoseconds).
func (s *Sender) sampleRTT(rtt sim.Time) {
	if s.srtt == 0 {
		s.srtt, s.rttvar = rtt, rtt/2
	} else {
		d := s.srtt - rtt
		if d < 0 {
			d = -d
		}
		s.rttvar = (3*s.rttvar + d) / 4
		s.srtt = (7*s.srtt + rtt) / 8
	}
	s.setRTO()
}

// setRTO sets the timeout from the estimate and the backoff, as ns-2's rtt_timeout with
// rfc2988_: the minimum applies before the backoff multiplies.
func (s *Sender) setRTO() {
	if s.cfg.FixedRTO {
		return
	}
	s.rto = min(max(s.srtt+4*s.rttvar, s.cfg.MinRTO)<<s.backoff, s.cfg.MaxRTO)
}

// backOff doubles the timeout after a timeout, up to the maximum RTO, as ns-2's rtt_backoff. From
// a factor of 16 on it also forgets the smoothed RTT, so that the next sample starts the
// estimate afresh, and keeps the estimate meanwhile in the variance (srtt + 4·rttvar unchanged).
func (s *Sender) backOff() {
	if s.cfg.FixedRTO {
		return
	}
	if s.rto < s.cfg.MaxRTO {
		s.backoff++
	}
	if s.backoff > 3 && s.srtt != 0 {
		s.srtt, s.rttvar = 0, s.rttvar+s.srtt/4
	}
	s.setRTO()
}

// armTimer makes sure an event is queued no later than the deadline. Moving the deadline on
// every ACK would churn the event list, so the event is left where it is and, when it fires
// early, requeued for the deadline.
func (s *Sender) armTimer() {
	if s.timerAt == sim.Never || s.timerQueued {
		return
	}
	s.timerQueued = true
	s.el.Schedule(s.timerAt, s)
}

// DoNextEvent is the retransmission timer.
func (s *Sender) DoNextEvent() {
	s.timerQueued = false
	if s.done || s.timerAt == sim.Never {
		return
	}
	if s.el.Now() < s.timerAt {
		s.armTimer()
		return
	}
	if s.atHome() {
		// Still at home: nothing is lost yet (Linux's skb_still_in_host_queue).
		s.timerAt = s.el.Now() + s.rto
		s.armTimer()
		return
	}
	s.timeout()
}

func (s *Sender) timeout() {
	s.flow.Timeouts++
	s.reduce(s.halfWindow(), 1)
	s.nxt = s.una
	s.recovering, s.dupacks = false, 0
	s.backOff()
	s.send() // resends una, which stops the timing (Karn, in transmit)
	s.timerAt = s.el.Now() + s.rto
	s.armTimer()
}

// sack notes that the receiver holds packet seq beyond the cumulative ACK.
func (s *Sender) sack(seq int32) {
	if s.sacked == nil {
		board := newSeqSet(s.flow.Packets)
		s.sacked = &board
	}
	if s.sacked.add(seq) {
		s.sackedAbove++
	}
}

// isSacked says whether the receiver is known to hold packet seq.
func (s *Sender) isSacked(seq int32) bool {
	// Only packets at or beyond una are asked about, so none is SACKed while none is counted.
	return s.sackedAbove > 0 && s.sacked.has(seq)
}

// forgetSacked stops counting the SACKed packets in [from, to), which the cumulative ACK now
// covers.
func (s *Sender) forgetSacked(from, to int32) {
	if s.sackedAbove == 0 {
		return
	}
	for seq := from; seq < to; seq++ {
		if s.isSacked(seq) {
			s.sackedAbove--
		}
	}
}

// outstanding is the payload the receiver is not known to hold: below una nothing, above it
// every packet not SACKed (each counted as a full one).
func (s *Sender) outstanding() int64 {
	return s.flow.Size - int64(s.una+s.sackedAbove)*MSS
}

// window is how many packets may be outstanding: the whole packets of cwnd, at least one, as
// ns-2's agents send up to (int)cwnd_. Sending while fewer than cwnd were out let a fractional
// window round up, 13 packets out at a cwnd of 12.08.
func (s *Sender) window() int32 { return max(int32(s.cwnd), 1) }
