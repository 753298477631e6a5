package topology

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/qjump-net/qjump/internal/sim"
)

// configJSON is a Config in results.json: snake_case names that carry their unit, rates in bits
// per second and delays in nanoseconds like every other number there, and null, not 0, for a
// buffer left to the scheme (so that no reader takes it for a buffer of no packets).
type configJSON struct {
	Racks         int     `json:"racks"`
	HostsPerRack  int     `json:"hosts_per_rack"`
	Spines        int     `json:"spines"`
	EdgeRateBps   int64   `json:"edge_rate_bps"`
	CoreRateBps   int64   `json:"core_rate_bps"`
	LinkDelayNs   float64 `json:"link_delay_ns"`
	HostDelayNs   float64 `json:"host_delay_ns"`
	BufferPackets *int    `json:"buffer_packets"`      // null: the scheme's
	HostBuffer    *int    `json:"host_buffer_packets"` // null: as buffer_packets
}

// goConfig is Config without its methods: the form results.json had before configJSON, Go's
// field names and delays in picoseconds, which Report still reads.
type goConfig Config

// MarshalJSON writes c as configJSON.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(configJSON{
		Racks: c.Racks, HostsPerRack: c.HostsPerRack, Spines: c.Spines,
		EdgeRateBps: int64(c.EdgeRate), CoreRateBps: int64(c.CoreRate),
		LinkDelayNs: nanoseconds(c.LinkDelay), HostDelayNs: nanoseconds(c.HostDelay),
		BufferPackets: packets(c.Buffer), HostBuffer: packets(c.HostBuffer),
	})
}

// UnmarshalJSON reads configJSON, or the older Go-named form.
func (c *Config) UnmarshalJSON(b []byte) error {
	if bytes.Contains(b, []byte(`"HostsPerRack"`)) {
		return json.Unmarshal(b, (*goConfig)(c))
	}
	var j configJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Config{Racks: j.Racks, HostsPerRack: j.HostsPerRack, Spines: j.Spines,
		EdgeRate: sim.Rate(j.EdgeRateBps), CoreRate: sim.Rate(j.CoreRateBps),
		LinkDelay: picoseconds(j.LinkDelayNs), HostDelay: picoseconds(j.HostDelayNs)}
	if j.BufferPackets != nil {
		c.Buffer = *j.BufferPackets
	}
	if j.HostBuffer != nil {
		c.HostBuffer = *j.HostBuffer
	}
	return nil
}

// String is c for people and error messages.
func (c Config) String() string {
	buffer := "the scheme's buffers"
	if c.Buffer != 0 {
		buffer = fmt.Sprintf("%d-packet switch ports", c.Buffer)
	}
	return fmt.Sprintf("%d racks of %d hosts, %d spines, %g Gb/s host links, %g Gb/s core links, %v per link, %v per host-link crossing, %s",
		c.Racks, c.HostsPerRack, c.Spines, float64(c.EdgeRate)/float64(sim.Gbps), float64(c.CoreRate)/float64(sim.Gbps),
		c.LinkDelay, c.HostDelay, buffer)
}

// nanoseconds is t in ns, exact to the picosecond.
func nanoseconds(t sim.Time) float64 { return float64(t) / float64(sim.Nanosecond) }

// picoseconds is ns as a Time, rounded to the picosecond.
func picoseconds(ns float64) sim.Time { return sim.Time(math.Round(ns * float64(sim.Nanosecond))) }

// packets is n, or nil for 0 (the default it stands for).
func packets(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}
