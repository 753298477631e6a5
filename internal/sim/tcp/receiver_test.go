package tcp

import (
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

// An ACK goes at its data packet's level, or at the receiver's ACK level once one is set
// (qjump-ns2: the authors' ACKs rode at the top priority).
func TestReceiverAckLevel(t *testing.T) {
	for _, c := range []struct {
		set  bool
		want uint8
	}{{false, 2}, {true, 7}} {
		el, pool := sim.NewEventList(), &sim.PacketPool{}
		f := &Flow{ID: 1, Size: 2 * MSS, Packets: 2}
		var got []uint8
		rcv := NewReceiver(el, pool, f, sim.Route{sinkFunc(func(a *sim.Packet) {
			got = append(got, a.Level)
			pool.Put(a)
		})}, func(*Flow) {})
		if c.set {
			rcv.SetAckLevel(7)
		}
		for seq := int32(0); seq < 2; seq++ {
			p := pool.Get()
			p.Flow, p.Seq, p.Size, p.Level = 1, seq, MSS+Header, 2
			rcv.Receive(p)
		}
		if len(got) != 2 || got[0] != c.want || got[1] != c.want {
			t.Errorf("ack level set %v: ACKs at levels %v, want both at %d", c.set, got, c.want)
		}
	}
}
