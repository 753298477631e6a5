package experiment

import (
	"fmt"
	"sync/atomic"

	"github.com/qjump-net/qjump/internal/sim"
)

// Progress is how far a running point is, for a progress line while it runs: the simulation
// writes it once per flow started or completed (not per packet, so it costs nothing measurable),
// and any goroutine may read it. It never changes what is simulated.
type Progress struct {
	started, done atomic.Int64
	background    atomic.Int64 // flows started after the point's last (FCTConfig.Steady)
	simulated     atomic.Int64 // sim.Time of the last flow started or completed
}

// flowStarted and flowDone count a flow; on a nil Progress (nobody asked) they do nothing.
func (p *Progress) flowStarted(now sim.Time) {
	if p != nil {
		p.started.Add(1)
		p.simulated.Store(int64(now))
	}
}

func (p *Progress) backgroundStarted() {
	if p != nil {
		p.background.Add(1)
	}
}

func (p *Progress) flowDone(now sim.Time) {
	if p != nil {
		p.done.Add(1)
		p.simulated.Store(int64(now))
	}
}

// Flows is how many flows have started and how many have completed.
func (p *Progress) Flows() (started, done int) { return int(p.started.Load()), int(p.done.Load()) }

// Simulated is the simulated time reached, as of the last flow started or completed.
func (p *Progress) Simulated() sim.Time { return sim.Time(p.simulated.Load()) }

// Line is the progress for people: "1234 of 5000 flows completed (1500 started), 0.31 s simulated",
// and in a steady point, once the last flow has started, how many background flows followed it.
func (p *Progress) Line(flows int) string {
	started, done := p.Flows()
	line := fmt.Sprintf("%d of %d flows completed (%d started), %.3g s simulated", done, flows, started, p.Simulated().Seconds())
	if bg := p.background.Load(); bg > 0 {
		line += fmt.Sprintf(", %d background flows since the last", bg)
	}
	return line
}
