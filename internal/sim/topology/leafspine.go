// Package topology builds the simulated fabrics: the leaf-spine of the pFabric and QJump
// simulations (QJump paper Fig. 8: 9 racks of 16 hosts on 10 Gb/s links, every top-of-rack
// switch on each of 4 spines at 40 Gb/s) and the routes through it.
package topology

import (
	"fmt"

	"github.com/qjump-net/qjump/internal/sim"
)

// Config sizes a leaf-spine fabric.
type Config struct {
	Racks        int
	HostsPerRack int
	Spines       int
	EdgeRate     sim.Rate // host links
	CoreRate     sim.Rate // ToR–spine links
	LinkDelay    sim.Time // propagation of every link
	HostDelay    sim.Time // host stack and NIC, added on each host link in each direction
	Buffer       int      // packets per switch port; 0: the scheme's default
	HostBuffer   int      // packets in a host's NIC queue; 0: as Buffer
}

// PaperFabric is Fig. 8's fabric with the pFabric simulations' delays: 0.2 µs per link and
// 2.5 µs of host delay per host-link crossing, so that the base round trip across the spine is
// the pFabric paper's 14.6 µs, of which 10 µs is spent in the hosts (pFabric paper §5.1). The
// buffers are left to the scheme.
func PaperFabric() Config {
	return Config{
		Racks: 9, HostsPerRack: 16, Spines: 4,
		EdgeRate: 10 * sim.Gbps, CoreRate: 40 * sim.Gbps,
		LinkDelay: 200 * sim.Nanosecond, HostDelay: 2500 * sim.Nanosecond,
	}
}

// MinRate and MaxRate bound a link's rate. Below 1 Mb/s a point's simulated time grows without
// its packets, and the senders' timers tick through it (5 web-search flows at 100 b/s: 23
// million events for 1,185 packet-hops, 9 s of wall time, all unfinished). Up to 2 Tb/s, past
// the fastest Ethernet standardised (1.6 Tb/s), the picosecond clock's rounding down of each
// serialisation stays under 1 % of the smallest packet's, a 40-byte ACK's 160 ps.
const (
	MinRate sim.Rate = 1_000_000
	MaxRate sim.Rate = 2_000_000_000_000
)

// RateAllowed is what a link rate may be, and why, for a refusal.
var RateAllowed = "need 1Mb/s to 2Tb/s: below 1 Mb/s a point's simulated time grows without its packets, " +
	"and above 2 Tb/s the picosecond clock rounds a 40-byte ACK's serialisation by over 1 %"

// Hosts is the number of hosts.
func (c Config) Hosts() int { return c.Racks * c.HostsPerRack }

// Validate checks the sizes.
func (c Config) Validate() error {
	switch {
	case c.Racks < 1:
		return fmt.Errorf("racks %d: need at least 1", c.Racks)
	case c.HostsPerRack < 1:
		return fmt.Errorf("hosts per rack %d: need at least 1", c.HostsPerRack)
	case c.Hosts() < 2:
		return fmt.Errorf("%d hosts: need at least 2", c.Hosts())
	case c.Spines < 1:
		return fmt.Errorf("spines %d: need at least 1", c.Spines)
	case c.EdgeRate < MinRate || c.EdgeRate > MaxRate || c.CoreRate < MinRate || c.CoreRate > MaxRate:
		return fmt.Errorf("edge rate %d b/s, core rate %d b/s: %s", c.EdgeRate, c.CoreRate, RateAllowed)
	case c.LinkDelay < 0 || c.HostDelay < 0:
		return fmt.Errorf("delays must not be negative")
	case c.Buffer < 1 || c.HostBuffer < 1:
		return fmt.Errorf("buffers need at least 1 packet")
	}
	return nil
}

// Hop is one store-and-forward hop of a path: a queue's link rate and the pipe after it.
type Hop struct {
	Rate  sim.Rate
	Delay sim.Time
}

// Path is the list of hops from src to dst (same rack: 2 hops; across the spine: 4).
func (c Config) Path(src, dst int) []Hop {
	edge := Hop{c.EdgeRate, c.LinkDelay + c.HostDelay}
	if src/c.HostsPerRack == dst/c.HostsPerRack {
		return []Hop{edge, edge}
	}
	core := Hop{c.CoreRate, c.LinkDelay}
	return []Hop{edge, core, core, edge}
}
