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
