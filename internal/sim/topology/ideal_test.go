package topology

import (
	"math/rand/v2"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

// The closed form must give the recurrence's value to the picosecond on any path: random hop
// counts, rates (whole and fractional picoseconds per byte), delays and flow lengths.
func TestIdealFCTFramesMatchesRecurrence(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rates := []sim.Rate{sim.Gbps, 10 * sim.Gbps, 40 * sim.Gbps, 100 * sim.Gbps, 3 * sim.Gbps, 7_000_000_000}
	for trial := 0; trial < 2000; trial++ {
		path := make([]Hop, 1+rng.IntN(6))
		for j := range path {
			path[j] = Hop{Rate: rates[rng.IntN(len(rates))], Delay: sim.Time(rng.Int64N(int64(5 * sim.Microsecond)))}
		}
		full := int32(64 + rng.IntN(9000))
		last := int32(1 + rng.IntN(int(full)))
		n := int32(1 + rng.IntN(300))
		sizes := func(i int32) int32 {
			if i == n-1 {
				return last
			}
			return full
		}
		want := IdealFCT(path, sizes, n)
		if got := IdealFCTFrames(path, full, last, n); got != want {
			t.Fatalf("path %v, %d packets of %d B, last %d B: closed form %v, recurrence %v", path, n, full, last, got, want)
		}
	}
}
