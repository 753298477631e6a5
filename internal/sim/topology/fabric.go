package topology

import "github.com/qjump-net/qjump/internal/sim"

// PortMaker makes an output port of a scheme: a queue of rate with limit packets; host says it
// is host's NIC (host ≥ 0) rather than a switch port (host = −1). Build sets the port's link.
type PortMaker func(rate sim.Rate, limit int, host int) sim.Port

// Fabric is a built leaf-spine: every output port, each with its link's delay set.
type Fabric struct {
	Config
	hostUp    []sim.Port   // host NIC, to its ToR
	torUp     [][]sim.Port // [rack][spine]
	spineDown [][]sim.Port // [spine][rack]
	torDown   []sim.Port   // ToR port to host h
	// Ports lists every port, host NICs first, for statistics.
	Ports []sim.Port
}

// Build makes the fabric's ports with mk. An edge link's delay includes the host's processing
// (HostDelay), on the way in and out alike.
func Build(el *sim.EventList, c Config, mk PortMaker) *Fabric {
	f := &Fabric{Config: c}
	port := func(rate sim.Rate, limit, host int, delay sim.Time) sim.Port {
		p := mk(rate, limit, host)
		p.SetLink(delay)
		f.Ports = append(f.Ports, p)
		return p
	}
	edgeDelay := c.LinkDelay + c.HostDelay
	for h := 0; h < c.Hosts(); h++ {
		f.hostUp = append(f.hostUp, port(c.EdgeRate, c.HostBuffer, h, edgeDelay))
	}
	for h := 0; h < c.Hosts(); h++ {
		f.torDown = append(f.torDown, port(c.EdgeRate, c.Buffer, -1, edgeDelay))
	}
	f.torUp = make([][]sim.Port, c.Racks)
	for r := 0; r < c.Racks; r++ {
		for s := 0; s < c.Spines; s++ {
			f.torUp[r] = append(f.torUp[r], port(c.CoreRate, c.Buffer, -1, c.LinkDelay))
		}
	}
	f.spineDown = make([][]sim.Port, c.Spines)
	for s := 0; s < c.Spines; s++ {
		for r := 0; r < c.Racks; r++ {
			f.spineDown[s] = append(f.spineDown[s], port(c.CoreRate, c.Buffer, -1, c.LinkDelay))
		}
	}
	return f
}

// HostPort is host h's NIC.
func (f *Fabric) HostPort(h int) sim.Port { return f.hostUp[h] }

// Route is the path from src to dst through spine (ignored inside a rack), ending at end: the
// ports a packet leaves by, the links behind them being theirs.
func (f *Fabric) Route(src, dst, spine int, end sim.Sink) sim.Route {
	rs, rd := src/f.HostsPerRack, dst/f.HostsPerRack
	if rs == rd {
		return sim.Route{f.hostUp[src], f.torDown[dst], end}
	}
	return sim.Route{f.hostUp[src], f.torUp[rs][spine], f.spineDown[spine][rd], f.torDown[dst], end}
}

// ECMP picks a spine for a flow direction by hashing (per-flow ECMP: all packets of one
// direction of a flow take one path; the hash is salted by the run's seed).
func (f *Fabric) ECMP(flow int32, reverse bool, salt uint64) int {
	x := uint64(uint32(flow))<<1 | b2u(reverse)
	return int(mix(x^salt) % uint64(f.Spines))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// mix is splitmix64's finaliser: a cheap hash whose low bits are well spread.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
