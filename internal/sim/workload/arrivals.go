package workload

import (
	"math/rand/v2"

	"github.com/qjump-net/qjump/internal/sim"
)

// FlowSpec is one flow the workload asks for.
type FlowSpec struct {
	Start    sim.Time
	Src, Dst int
	Size     int64
}

// Generator draws flows: Poisson arrivals at a rate that offers load (a fraction of every host's
// edge capacity, counting 40-byte headers on 1460-byte payloads as the pFabric scripts do),
// sizes from the CDF, and a uniformly random source and a distinct destination. Each draw has
// its own seeded stream, so changing one never shifts the others.
type Generator struct {
	cdf                   *CDF
	hosts                 int
	meanGap               float64 // picoseconds
	arrivals, sizes, ends *rand.Rand
	now                   float64
}

// WireBytes is what payload bytes offer the links: 40-byte headers on 1460-byte payloads, as the
// pFabric scripts count the load.
func WireBytes(payload float64) float64 { return payload * 1500 / 1460 }

// ArrivalRate is how many flows of cdf arrive per second to offer load over hosts with edge rate:
// the load's share of their capacity over a flow's mean wire bytes (the CDF's, as the pFabric
// scripts count it).
func ArrivalRate(cdf *CDF, hosts int, rate sim.Rate, load float64) float64 {
	return load * float64(hosts) * float64(rate) / (8 * WireBytes(cdf.Mean()))
}

// NewGenerator returns the flows of cdf at load over hosts with edge rate, seeded by seed.
func NewGenerator(cdf *CDF, hosts int, rate sim.Rate, load float64, seed uint64) *Generator {
	return &Generator{
		cdf: cdf, hosts: hosts, meanGap: float64(sim.Second) / ArrivalRate(cdf, hosts, rate, load),
		arrivals: rand.New(rand.NewPCG(seed, 1)),
		sizes:    rand.New(rand.NewPCG(seed, 2)),
		ends:     rand.New(rand.NewPCG(seed, 3)),
	}
}

// Next draws the next flow.
func (g *Generator) Next() FlowSpec {
	g.now += g.arrivals.ExpFloat64() * g.meanGap
	src := g.ends.IntN(g.hosts)
	dst := g.ends.IntN(g.hosts - 1)
	if dst >= src {
		dst++
	}
	return FlowSpec{Start: sim.Time(g.now), Src: src, Dst: dst, Size: g.cdf.Draw(g.sizes.Float64())}
}
