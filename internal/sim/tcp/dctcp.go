package tcp

// DCTCP is Data Center TCP (Alizadeh et al., SIGCOMM 2010, §3.1; RFC 8257 §3.3): switches mark
// CE above K packets, the receiver echoes every mark, and once per window of data the sender
// updates α ← (1−g)·α + g·F, F the fraction of acknowledged packets that were marked, and on a
// mark cuts its window once per window: cwnd ← cwnd·(1 − α/2). Loss recovery and growth are TCP's.
type DCTCP struct {
	Reno
	G     float64 // the paper's g = 1/16
	alpha float64

	windowEnd     int32 // alpha is updated when una passes it
	acked, marked int32
	cutUntil      int32 // no second cut before una passes it
}

// NewDCTCP returns DCTCP's control with gain g; α starts at 1 (RFC 8257 §3.3), which makes the
// first marks cut hard rather than not at all.
func NewDCTCP(g float64) *DCTCP { return &DCTCP{G: g, alpha: 1} }

// Alpha is the current estimate of the fraction of marked packets.
func (d *DCTCP) Alpha() float64 { return d.alpha }

// OnEcho counts marks and updates α once per window.
func (d *DCTCP) OnEcho(s *Sender, acked int32, ece bool) {
	d.acked += acked
	if ece {
		d.marked += acked
	}
	if s.una >= d.windowEnd {
		if d.acked > 0 {
			d.alpha = (1-d.G)*d.alpha + d.G*float64(d.marked)/float64(d.acked)
		}
		d.acked, d.marked = 0, 0
		d.windowEnd = s.nxt
	}
	if ece && s.una >= d.cutUntil {
		s.SetCwnd(s.cwnd * (1 - d.alpha/2))
		d.cutUntil = s.nxt
	}
}

// OnAck grows the window unless this ACK carried a mark.
func (d *DCTCP) OnAck(s *Sender, ece bool) {
	if !ece {
		s.grow()
	}
}
