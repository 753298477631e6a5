package experiment

import "fmt"

// PerfLine is the one line of simulator speed every command prints.
func PerfLine(p Perf) string {
	return fmt.Sprintf("wall %.2fs, simulated %.4fs (%.3f sim-s/wall-s), %d events (%.2fM/s), %d packet-hops (%.2fM/s)",
		p.WallSeconds, p.SimulatedSeconds, p.SimulatedSeconds/p.WallSeconds, p.Events, p.EventsPerSecond()/1e6,
		p.PacketHops, p.HopsPerSecond()/1e6)
}
