package experiment

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// The scheme parameters that depend on the fabric: what --buffer and --edge-rate may be for each
// scheme, and what the schemes' configurations become on a fabric other than the paper's.

// checkBuffer refuses a buffer the scheme cannot work with. fab's buffers are the ones the point
// runs with (FCTConfig.fabric: the scheme's default filled in).
//   - dctcp marks a packet that finds K packets waiting, and a port drops at its buffer: at a
//     buffer of K or fewer no packet is ever marked and DCTCP runs as TCP. K stays the QJump
//     paper's 65 (§6.3) rather than scaling with the buffer: it is the scheme being compared, and
//     a smaller K is a different DCTCP (its guideline is a lower bound, dctcpGuidelineWarning).
//   - pfabric caps a flow's window at the buffer less one (PFabricMaxCwnd), which a buffer of one
//     packet leaves at nothing.
func checkBuffer(s Scheme, fab topology.Config) error {
	switch s {
	case DCTCP:
		if err := dctcpBuffer("buffer", fab.Buffer); err != nil {
			return err
		}
		return dctcpBuffer("host-buffer", fab.HostBuffer)
	case PFabric:
		if fab.Buffer < 2 {
			return &model.FieldError{Field: "buffer", Value: fmt.Sprint(fab.Buffer), Allowed: fmt.Sprintf(
				"pfabric caps each flow's window at the buffer less one (the pFabric scripts' maxcwnd_), "+
					"so it needs at least 2 packets, or 0 for its %d", PFabricBuffer)}
		}
	}
	return nil
}

// dctcpBuffer refuses a DCTCP port of buffer packets that can never mark.
func dctcpBuffer(field string, buffer int) error {
	if buffer > DCTCPK {
		return nil
	}
	return &model.FieldError{Field: field, Value: fmt.Sprint(buffer), Allowed: fmt.Sprintf(
		"dctcp marks at K = %d packets (the QJump paper's threshold, §6.3) and a port of %d packets "+
			"drops before it marks, so DCTCP would run as TCP: need more than %d packets, or 0 for dctcp's %d",
		DCTCPK, buffer, DCTCPK, TCPBuffer)}
}

// dctcpGuidelineWarning says when K is at or below the DCTCP paper's guideline K > C·RTT/7
// (Alizadeh et al., SIGCOMM 2010, §3.4) at the fabric's fastest link C and its base round trip:
// the queue may then empty after each window cut and the link idle. On the paper's fabric
// C·RTT/7 is 7 packets at 40 Gb/s and 14.6 µs, far below K = 65, which holds it up to about
// 370 Gb/s at that round trip; longer delays bring that down. A warning, not a refusal: DCTCP still marks and
// still controls the queue, at some cost in throughput.
func dctcpGuidelineWarning(fab topology.Config) string {
	c := max(fab.EdgeRate, fab.CoreRate)
	rtt := baseRTT(fab)
	bdp := float64(c) * rtt.Seconds() / (8 * 1500) // packets of 1500 bytes in flight at C
	if float64(DCTCPK) > bdp/7 {
		return ""
	}
	return fmt.Sprintf("scheme dctcp: K = %d packets is at or below the DCTCP paper's guideline C·RTT/7 = %.1f packets "+
		"(C = %s, base RTT %s): its queues may empty after a window cut and leave the link idle",
		DCTCPK, bdp/7, model.Rate(c), model.DurationText(time.Duration(rtt/sim.Nanosecond)))
}

// baseRTT is a full packet's trip across the fabric's longest path and its ACK's way back.
func baseRTT(fab topology.Config) sim.Time {
	path := fab.Path(0, fab.Hosts()-1)
	oneWay := func(size int32) sim.Time { return topology.IdealFCT(path, func(int32) int32 { return size }, 1) }
	return oneWay(1500) + oneWay(40)
}

// ns2Rate is the edge rate the authors' ns-2 levels were written for: level 0's budget,
// 10.5 Mbit per NS2Interval, is 10 Gb/s.
const ns2Rate = 10 * sim.Gbps

// NS2IntervalAt is the authors' interval on edge links of rate: NS2Interval · 10 Gb/s / rate,
// to the picosecond. Each budget stays the size of the flows its level takes, so a flow's
// first transmission still fits its interval, and each level keeps its share of the line: level
// 0 its line rate. This is what QJump's own epoch n·P/R does with R while budgets f·P stay;
// kept at 1.05 ms on 40 Gb/s edges, level 0 would be held to a quarter of the line. rate is a
// valid fabric's (topology.MinRate at least), so the interval is at most 10.5 s; the product
// NS2Interval · 10 Gb/s (1.05·10¹⁹) is past an int64, so it is taken in 128 bits.
func NS2IntervalAt(rate sim.Rate) sim.Time {
	hi, lo := bits.Mul64(uint64(NS2Interval), uint64(ns2Rate))
	q, rem := bits.Div64(hi, lo, uint64(rate))
	if 2*rem >= uint64(rate) { // halves up
		q++
	}
	return sim.Time(q)
}

// schemeWarnings are what a scheme's configuration on fab makes valid but probably unmeant:
// qjump's model warnings (model.Config.Warnings: an epoch over a second, a budget under a full
// frame, a factor above line rate), dctcp's K under its guideline.
func schemeWarnings(s Scheme, fab topology.Config, qj model.Config) []string {
	var w []string
	switch s {
	case QJump:
		for _, m := range qj.Warnings() {
			w = append(w, "scheme qjump: "+m)
		}
	case DCTCP:
		if g := dctcpGuidelineWarning(fab); g != "" {
			w = append(w, g)
		}
	}
	return w
}
