package sim

import "testing"

func TestEventListOrdersByTimeThenScheduling(t *testing.T) {
	el := NewEventList()
	var got []int
	at := []Time{50, 10, 30, 10, 50, 0, 30}
	for i, a := range at {
		i := i
		el.Schedule(a, call(func() { got = append(got, i) }))
	}
	el.Run(Never)
	want := []int{5, 1, 3, 2, 6, 0, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
	if el.Events() != uint64(len(at)) || el.Now() != 50 {
		t.Fatalf("events %d now %v", el.Events(), el.Now())
	}
}

func TestEventListManyRandomEventsComeOutSorted(t *testing.T) {
	el := NewEventList()
	last := Time(-1)
	x := uint64(1)
	var n int
	var check Source
	check = call(func() {
		if el.Now() < last {
			t.Fatalf("time went back from %v to %v", last, el.Now())
		}
		last = el.Now()
		n++
		if n < 100000 {
			x = x*6364136223846793005 + 1442695040888963407
			el.Schedule(el.Now()+Time(x>>50), check)
		}
	})
	for i := 0; i < 100; i++ {
		el.Schedule(Time(i*7%13), check)
	}
	el.Run(Never)
	if n < 100000 {
		t.Fatalf("ran %d events", n)
	}
}

func TestRunStopsAtUntil(t *testing.T) {
	el := NewEventList()
	ran := 0
	el.Schedule(10, call(func() { ran++ }))
	el.Schedule(20, call(func() { ran++ }))
	if now := el.Run(15); now != 15 || ran != 1 || el.Pending() != 1 {
		t.Fatalf("now %v ran %d pending %d", now, ran, el.Pending())
	}
}

func TestSerialization(t *testing.T) {
	if got := (10 * Gbps).Serialization(1500); got != 1200*Nanosecond {
		t.Fatalf("1500B at 10G: %v", got)
	}
	if got := (40 * Gbps).Serialization(40); got != 8*Nanosecond {
		t.Fatalf("40B at 40G: %v", got)
	}
}
