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

// Events at the same picosecond come out in the order they were scheduled, also when some were
// scheduled beyond the wheel's horizon (the far heap) and into the bucket being dispatched.
func TestEventListTiesKeepSchedulingOrder(t *testing.T) {
	el := NewEventList()
	x := uint64(7)
	type out struct {
		at  Time
		seq int
	}
	var got []out
	scheduled := 0
	var add func(at Time)
	add = func(at Time) {
		seq := scheduled
		scheduled++
		el.Schedule(at, call(func() {
			got = append(got, out{el.Now(), seq})
			if scheduled < 200000 {
				x = x*6364136223846793005 + 1442695040888963407
				// Coarse times (multiples of 1 µs) so that ties are common; now and then far ahead.
				d := Time(x>>61) * Microsecond
				if x&1023 == 0 {
					d += Second
				}
				add(el.Now() + d)
				add(el.Now() + d)
			}
		}))
	}
	for i := 0; i < 50; i++ {
		add(Time(i%3) * Microsecond)
	}
	el.Run(Never)
	for i := 1; i < len(got); i++ {
		if got[i].at < got[i-1].at || (got[i].at == got[i-1].at && got[i].seq < got[i-1].seq) {
			t.Fatalf("event %d: (%v, %d) after (%v, %d)", i, got[i].at, got[i].seq, got[i-1].at, got[i-1].seq)
		}
	}
}

// An event due one bucket short of the horizon lands just behind the current bucket in the
// wheel: the search for the next occupied bucket must wrap around the whole wheel to find it, and
// must not take it for one that is due sooner (a near event scheduled with it).
func TestEventListFindsBucketBehindCurrent(t *testing.T) {
	el := NewEventList()
	d := Time((el.wheelSize - 1) << el.shift)
	var fired []Time
	var near, far Source
	ticks := 0
	near = call(func() { fired = append(fired, el.Now()) })
	far = call(func() {
		fired = append(fired, el.Now())
		if ticks++; ticks < 6 {
			el.Schedule(el.Now()+d+Time(ticks), far)
			el.Schedule(el.Now()+Time(ticks)*Microsecond, near)
		}
	})
	el.Schedule(3, far)
	el.Run(Never)
	if len(fired) != 11 {
		t.Fatalf("%d events fired, want 11", len(fired))
	}
	for i := 1; i < len(fired); i++ {
		if fired[i] < fired[i-1] {
			t.Fatalf("event %d at %v after one at %v", i, fired[i], fired[i-1])
		}
	}
	if last := fired[len(fired)-1]; last < 4*d {
		t.Fatalf("last event at %v, want after %v", last, 4*d)
	}
}

// peek notes the next occupied bucket so that advance need not search for it again; an event
// filed after that, due before it, must still run first.
func TestEventListEventFiledAfterPeekRunsFirst(t *testing.T) {
	el := NewEventList()
	var got []string
	el.Schedule(Microsecond, call(func() { got = append(got, "late") }))
	el.Schedule(10*Nanosecond, call(func() {
		got = append(got, "first")
		el.Schedule(500*Nanosecond, call(func() { got = append(got, "filed after peek") }))
	}))
	el.Run(Never)
	want := []string{"first", "filed after peek", "late"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("order %q, want %q", got, want)
	}
}
