package tcp

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

// lossyFlow runs one flow of packets over a 10 Gb/s path with a 10 µs RTT whose link loses the
// first copy of each packet in lose, and returns how often each packet was sent, the sender and
// whether the flow completed.
func lossyFlow(t *testing.T, cfg Config, packets int32, lose map[int32]bool) ([]int, *Sender, bool) {
	t.Helper()
	el, pool := sim.NewEventList(), &sim.PacketPool{}
	f := &Flow{ID: 1, Size: int64(packets) * MSS, Packets: packets}
	sent := make([]int, packets)
	rcv := NewReceiver(el, pool, f, nil, func(*Flow) {})
	link := sinkFunc(func(p *sim.Packet) {
		sent[p.Seq]++
		if lose[p.Seq] && sent[p.Seq] == 1 {
			pool.Put(p)
			return
		}
		p.SendOn()
	})
	q := sim.NewQueue(el, pool, 10*sim.Gbps, 1000, 0, true) // the host NIC: it tells the sender what left
	snd := NewSender(el, pool, &cfg, PFabric{}, f, sim.Route{q, link, sim.NewPipe(el, 5*sim.Microsecond), rcv})
	rcv.SetRoute(sim.Route{sim.NewPipe(el, 5*sim.Microsecond), snd})
	snd.Start()
	el.Run(100 * sim.Millisecond)
	return sent, snd, f.Done()
}

// With SACK, timeouts resend only the packets that were lost: the receiver's ACKs for the packets
// after each hole told the sender it holds them. Without, the ACK for the first hole's packet
// takes the sender to the second hole, and the window it then sends from there repeats packets
// the receiver already has.
func TestSACKResendsOnlyTheHoles(t *testing.T) {
	cfg := Config{InitCwnd: 12, MinRTO: 45 * sim.Microsecond, MaxRTO: 45 * sim.Microsecond, FixedRTO: true}
	lose := map[int32]bool{2: true, 5: true}
	count := func(sent []int) (resent []int32) {
		for seq, n := range sent {
			if n > 1 {
				resent = append(resent, int32(seq))
			}
		}
		return resent
	}
	goBack, _, done := lossyFlow(t, cfg, 12, lose)
	if !done || len(count(goBack)) <= 2 {
		t.Fatalf("without SACK: done %v, resent %v; want more than the two holes resent", done, count(goBack))
	}
	cfg.SACK = true
	sacked, snd, done := lossyFlow(t, cfg, 12, lose)
	if r := count(sacked); !done || len(r) != 2 || r[0] != 2 || r[1] != 5 {
		t.Fatalf("with SACK: done %v, resent %v; want packets 2 and 5 alone", done, r)
	}
	if snd.sackedAbove != 0 || snd.outstanding() > 0 {
		t.Errorf("after the flow: %d packets counted as SACKed above una, %d bytes outstanding; want 0 and ≤ 0",
			snd.sackedAbove, snd.outstanding())
	}
}

// While packets after a hole are SACKed, pFabric's priority counts only what the receiver does not
// hold: the hole and what was not sent yet.
func TestPFabricPriorityLeavesOutSACKed(t *testing.T) {
	f := &Flow{ID: 1, Size: 10 * MSS, Packets: 10}
	s := &Sender{flow: f, cfg: &Config{SACK: true}, useSACK: true}
	s.una = 2
	for _, seq := range []int32{3, 4, 4, 6} { // a duplicate SACK counts once
		s.sack(seq)
	}
	if got, want := (PFabric{}).Priority(s), int64(10-2-3)*MSS; got != want {
		t.Fatalf("priority %d bytes, want %d (10 packets, 2 acknowledged, 3 SACKed)", got, want)
	}
	s.forgetSacked(2, 5) // an ACK up to 5 covers the SACKed 3 and 4
	s.una = 5
	if got, want := (PFabric{}).Priority(s), int64(10-5-1)*MSS; got != want {
		t.Fatalf("after the ACK: priority %d bytes, want %d", got, want)
	}
}

// MaxCwnd holds the window however long the flow runs without loss; without it the window grows.
func TestMaxCwndCapsTheWindow(t *testing.T) {
	cfg := Config{InitCwnd: 12, MinRTO: sim.Millisecond, MaxRTO: sim.Millisecond, FixedRTO: true}
	_, free, done := lossyFlow(t, cfg, 400, nil)
	if !done || free.Cwnd() <= 23 {
		t.Fatalf("uncapped: done %v, window %.1f; want it past 23 packets", done, free.Cwnd())
	}
	cfg.MaxCwnd = 23
	_, capped, done := lossyFlow(t, cfg, 400, nil)
	if !done || capped.Cwnd() != 23 {
		t.Fatalf("capped at 23: done %v, window %.1f; want exactly 23", done, capped.Cwnd())
	}
}
