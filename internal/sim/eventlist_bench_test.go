package sim

import "testing"

type nop struct{}

func (nop) DoNextEvent() {}

// BenchmarkEventList is the classic hold model: 600 pending events (the peak of a 144-host point),
// each dispatch scheduling one more at a random offset.
func BenchmarkEventList(b *testing.B) {
	el := NewEventList()
	x := uint64(1)
	for i := 0; i < 600; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		el.Schedule(Time(x>>44), nop{})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := el.pop()
		el.now = ev.at
		x = x*6364136223846793005 + 1442695040888963407
		el.Schedule(el.now+Time(x>>44), nop{})
	}
}
