package sim

import "testing"

func TestPrioQueueServesHighestLevelFirstAndPushesOutLowest(t *testing.T) {
	el, pool := NewEventList(), &PacketPool{}
	rec := &recorder{el: el, pool: pool}
	q := NewPrioQueue(el, pool, 10*Gbps, 3, false)
	route := Route{q, rec}
	// Seq 0 (level 0) goes into service; 1,2 (level 0) and 3 (level 5) wait; 4 (level 7) finds
	// the buffer full and pushes out 2, the newest of level 0; 5 (level 0) is dropped.
	levels := []uint8{0, 0, 0, 5, 7, 0}
	for i, l := range levels {
		inject(el, pool, 0, route, int32(i), 1500, 0, l)
	}
	el.Run(Never)
	want := []int32{0, 4, 3, 1}
	if len(rec.seqs) != len(want) || q.Stats().Drops != 2 {
		t.Fatalf("order %v drops %d", rec.seqs, q.Stats().Drops)
	}
	for i := range want {
		if rec.seqs[i] != want[i] {
			t.Fatalf("order %v, want %v", rec.seqs, want)
		}
	}
}

func TestPFabricQueueSchedulesBySmallestRemainingAndDropsLargest(t *testing.T) {
	el, pool := NewEventList(), &PacketPool{}
	var got []int64
	sink := sinkFunc(func(p *Packet) { got = append(got, p.Prio); pool.Put(p) })
	q := NewPFabricQueue(el, pool, 10*Gbps, 3, false)
	route := Route{q, sink}
	// 100 in service; 50, 80, 10 wait; 60 arrives to a full buffer: 80 is dropped; 90 arrives: dropped.
	for i, prio := range []int64{100, 50, 80, 10, 60, 90} {
		inject(el, pool, 0, route, int32(i), 1500, prio, 0)
	}
	el.Run(Never)
	want := []int64{100, 10, 50, 60}
	if len(got) != len(want) || q.Stats().Drops != 2 {
		t.Fatalf("order %v drops %d", got, q.Stats().Drops)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
}

// Within one flow pFabric keeps order: the flow's earliest packet goes first even when a later
// one carries a better priority.
func TestPFabricQueueKeepsAFlowInOrder(t *testing.T) {
	el, pool := NewEventList(), &PacketPool{}
	var got []int32
	sink := sinkFunc(func(p *Packet) { got = append(got, p.Seq); pool.Put(p) })
	q := NewPFabricQueue(el, pool, 10*Gbps, 10, false)
	for i, prio := range []int64{500, 30, 20, 10} {
		i, prio := i, prio
		el.Schedule(0, call(func() {
			p := pool.Get()
			p.Seq, p.Size, p.Prio, p.Flow = int32(i), 1500, prio, 7
			p.SetRoute(Route{q, sink})
			p.SendOn()
		}))
	}
	el.Run(Never)
	if len(got) != 4 {
		t.Fatalf("%d of the flow's 4 packets arrived (%v), want all in sequence", len(got), got)
	}
	for i, s := range got {
		if s != int32(i) {
			t.Fatalf("order %v, want in sequence", got)
		}
	}
}
