package topology

import "github.com/qjump-net/qjump/internal/sim"

// IdealFCT is the completion time of a flow alone on an idle fabric, sent at line rate from its
// first packet: the time its last packet reaches dst when packets of the given wire sizes go
// back to back through the path's store-and-forward hops. Packet i leaves hop j at
//
//	D(i,j) = max(D(i−1,j), D(i,j−1) + delay(j−1)) + size_i/rate_j
//
// (a tandem of FIFO servers), and the flow completes at D(n,k) + delay(k). This is the pFabric
// normalisation: FCT divided by the best FCT the fabric allows.
func IdealFCT(path []Hop, sizes func(i int32) int32, n int32) sim.Time {
	var d [8]sim.Time // D(i−1, j) for every hop j
	for i := int32(0); i < n; i++ {
		s := int(sizes(i))
		var prev sim.Time // D(i, j−1) + delay(j−1); 0 at the first hop
		for j, h := range path {
			start := max(d[j], prev)
			d[j] = start + h.Rate.Serialization(s)
			prev = d[j] + h.Delay
		}
	}
	return d[len(path)-1] + path[len(path)-1].Delay
}

// IdealFCTFrames is IdealFCT for a flow of n packets all of full wire bytes but the last, of last
// bytes, in constant time per hop instead of per packet and hop: a flow of 20,000 packets would
// otherwise cost 80,000 steps of the recurrence. D(n,k) is the longest walk through the lattice
// of packets and hops, each cell costing its packet's serialization at its hop and each move to
// the next hop its delay. Every walk moves to the next hop k−1 times; the walk that first reaches
// the last packet at hop c spends its n−2 extra full packets at the slowest hop up to c, so
//
//	D(n,k) = Σ delay + max over c of [Σ_{j≤c} s_j(full) + (n−2)·max_{j≤c} s_j(full) + Σ_{j≥c} s_j(last)]
//
// which is exactly the recurrence's value (the same integer sums and maxima).
func IdealFCTFrames(path []Hop, full, last, n int32) sim.Time {
	var delays, lastTail sim.Time
	for _, h := range path {
		delays += h.Delay
		lastTail += h.Rate.Serialization(int(last))
	}
	if n == 1 {
		return delays + lastTail
	}
	var best, fullHead, slowest sim.Time
	for _, h := range path {
		s := h.Rate.Serialization(int(full))
		fullHead += s
		slowest = max(slowest, s)
		best = max(best, fullHead+sim.Time(n-2)*slowest+lastTail)
		lastTail -= h.Rate.Serialization(int(last))
	}
	return delays + best
}
