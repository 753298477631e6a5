package topology

import "github.com/qjump-net/qjump/internal/sim"

// PortMaker makes an output port of a scheme: a queue of rate with limit packets; host says it
// is host's NIC (host ≥ 0) rather than a switch port (host = −1).
type PortMaker func(rate sim.Rate, limit int, host int) sim.Sink

// Fabric is a built leaf-spine: every output port with the pipe behind it.
type Fabric struct {
	Config
	hostUp    []sim.Sink // host NIC, to its ToR
	hostUpP   []*sim.Pipe
	torUp     [][]sim.Sink // [rack][spine]
	torUpP    [][]*sim.Pipe
	spineDown [][]sim.Sink // [spine][rack]
	spineDnP  [][]*sim.Pipe
	torDown   []sim.Sink // ToR port to host h
	torDownP  []*sim.Pipe
	// Ports lists every port, host NICs first, for statistics.
	Ports []sim.Sink
}

// Build makes the fabric's ports with mk.
func Build(el *sim.EventList, c Config, mk PortMaker) *Fabric {
	f := &Fabric{Config: c}
	edgeDelay := c.LinkDelay + c.HostDelay
	for h := 0; h < c.Hosts(); h++ {
		f.hostUp = append(f.hostUp, mk(c.EdgeRate, c.HostBuffer, h))
		f.hostUpP = append(f.hostUpP, sim.NewPipe(el, edgeDelay))
	}
	for h := 0; h < c.Hosts(); h++ {
		f.torDown = append(f.torDown, mk(c.EdgeRate, c.Buffer, -1))
		f.torDownP = append(f.torDownP, sim.NewPipe(el, edgeDelay))
	}
	f.torUp, f.torUpP = make([][]sim.Sink, c.Racks), make([][]*sim.Pipe, c.Racks)
	for r := 0; r < c.Racks; r++ {
		for s := 0; s < c.Spines; s++ {
			f.torUp[r] = append(f.torUp[r], mk(c.CoreRate, c.Buffer, -1))
			f.torUpP[r] = append(f.torUpP[r], sim.NewPipe(el, c.LinkDelay))
		}
	}
	f.spineDown, f.spineDnP = make([][]sim.Sink, c.Spines), make([][]*sim.Pipe, c.Spines)
	for s := 0; s < c.Spines; s++ {
		for r := 0; r < c.Racks; r++ {
			f.spineDown[s] = append(f.spineDown[s], mk(c.CoreRate, c.Buffer, -1))
			f.spineDnP[s] = append(f.spineDnP[s], sim.NewPipe(el, c.LinkDelay))
		}
	}
	f.Ports = append(append(f.Ports, f.hostUp...), f.torDown...)
	for r := range f.torUp {
		f.Ports = append(f.Ports, f.torUp[r]...)
	}
	for s := range f.spineDown {
		f.Ports = append(f.Ports, f.spineDown[s]...)
	}
	return f
}

// HostPort is host h's NIC.
func (f *Fabric) HostPort(h int) sim.Sink { return f.hostUp[h] }

// Route is the path from src to dst through spine (ignored inside a rack), ending at end.
func (f *Fabric) Route(src, dst, spine int, end sim.Sink) sim.Route {
	rs, rd := src/f.HostsPerRack, dst/f.HostsPerRack
	if rs == rd {
		return sim.Route{f.hostUp[src], f.hostUpP[src], f.torDown[dst], f.torDownP[dst], end}
	}
	return sim.Route{
		f.hostUp[src], f.hostUpP[src],
		f.torUp[rs][spine], f.torUpP[rs][spine],
		f.spineDown[spine][rd], f.spineDnP[spine][rd],
		f.torDown[dst], f.torDownP[dst], end,
	}
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
