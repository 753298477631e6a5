package sim

import "testing"

// BenchmarkEventList is the classic hold model: 600 pending events (the peak of a 144-host point),
// each dispatch scheduling one more up to 4 µs later (serialization and link delays).
func BenchmarkEventList(b *testing.B) {
	el := NewEventList()
	x := uint64(1)
	var src Source
	n := 0
	src = call(func() {
		x = x*6364136223846793005 + 1442695040888963407
		if n++; n < b.N {
			el.Schedule(el.Now()+Time(x>>42), src)
		}
	})
	for i := 0; i < 600; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		el.Schedule(Time(x>>42), src)
	}
	b.ResetTimer()
	el.Run(Never)
}
