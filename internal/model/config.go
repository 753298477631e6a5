package model

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// DefaultMesochronous is m: host epochs are not aligned, so a host can emit two budgets inside one
// epoch-long window (the slides' 2nP/R).
const DefaultMesochronous = 2

// MaxRate is the fastest R the model takes, 10^15 b/s: some 600 times Ethernet's fastest link
// (1.6 Tb/s), and a rate at which a minimum frame (84B) still takes over half a picosecond, so that
// the epoch of the smallest configuration (n = m = 1, P = 84B, ε = 0) rounds to at least the
// picosecond that the simulator's clock counts, and never to nothing.
// Faster, a rate is a typo: 99999999999999999999999999999T was refused naming a P of
// -9223372036854775808B (an int64 wrapped) and more hosts than atoms.
const MaxRate Rate = 1e15

const maxRateAllowed = "need at most 1000Tb/s (10^15 b/s), some 600 times Ethernet's fastest link: there a " +
	"minimum frame already takes under a picosecond, the finest time the model counts"

// MinPacket is the smallest P that makes sense: one minimum Ethernet frame on the wire.
const MinPacket = MinWireFrame

// MinPacketAllowed is what a P below MinPacket is told.
const MinPacketAllowed = "need at least 84B, one minimum Ethernet frame on the wire (60B, FCS, preamble and inter-frame gap)"

// Config holds the model's inputs.
type Config struct {
	Hosts        int           // n: hosts that can send to one destination at once
	Rate         Rate          // R: edge rate in bit/s, the slowest host link
	Packet       Bytes         // P: wire bytes one host may send per epoch at factor 1 (WireBytes)
	Epsilon      time.Duration // ε: what D leaves out on the longest path (docs/model.md, "What D counts")
	Mesochronous int           // m: epoch misalignment compensation, at least 1
	Factors      Factors       // configured levels
	// MaxFrame is the wire size of the largest frame the device sends (FullFrameWire of its MTU),
	// which Warnings compares budgets with; 0 means DefaultPacket, a 1500-byte MTU untagged.
	MaxFrame Bytes
	// Shaped says that limited levels leave the host through token buckets (the dataplane's shape
	// mode) rather than a budget per epoch (police mode, the default): the fan-in bound counts
	// fewer budgets per host (BurstBudgets).
	Shaped bool
}

// DefaultFactors gives the guaranteed level (7) factor 1 and lets bulk (0) run unlimited: the
// paper's ptpd-and-Hadoop split, a safe start before tuning intermediate levels.
func DefaultFactors() Factors {
	return Factors{TopLevel: Limited(1), 0: Unlimited()}
}

// Validate checks every input and returns a *FieldError for the first one out of range, or for
// a combination that cannot work: an epoch the clocks cannot hold, a level whose budget cannot
// carry one minimum frame.
func (c Config) Validate() error {
	switch {
	case c.Hosts < 1:
		return fieldError("hosts", strconv.Itoa(c.Hosts), "need a whole number of hosts, at least 1")
	case !(c.Rate > 0) || math.IsInf(float64(c.Rate), 0):
		return fieldError("rate", c.Rate.String(), rateAllowed)
	case c.Rate > MaxRate:
		return fieldError("rate", c.Rate.String(), maxRateAllowed)
	case c.Packet < MinPacket:
		return fieldError("packet", c.Packet.String(), MinPacketAllowed)
	case c.Epsilon < 0:
		return fieldError("epsilon", c.Epsilon.String(), durationAllowed)
	case c.Mesochronous < 1:
		return fieldError("mesochronous", strconv.Itoa(c.Mesochronous), "need a whole number, at least 1")
	}
	if err := c.validateEpoch(); err != nil {
		return err
	}
	for _, l := range c.Factors.Levels() {
		if err := c.validateFactor(l, c.Factors[l]); err != nil {
			return err
		}
	}
	for _, l := range c.Factors.Levels() {
		if err := c.validateFanIn(l); err != nil {
			return err
		}
	}
	return nil
}

// largestFrame is MaxFrame, or DefaultPacket where it is not given.
func (c Config) largestFrame() Bytes {
	if c.MaxFrame <= 0 {
		return DefaultPacket
	}
	return c.MaxFrame
}

// Warnings lists inputs that are valid but probably not what the user meant. A limited level
// whose budget is smaller than the device's largest frame can never send a full-size frame in
// police mode, and in shape mode sends one only every few epochs, which the bound counts whole
// (smallBudgetWarning). That is a warning, not an error: a level for small messages may want it
// (the paper's Fig. 11 runs f7 = 0.5 with small frames). A level whose factor allows more than R
// is also a warning, not an error: tests use such factors to make a budget large, but a reader
// of its rate should know the link caps it. An epoch over LongEpoch is warned about too
// (longEpochWarning). (A default level that no configured level at or below carries is the
// dataplane's to warn of: config.Dataplane.Warnings.)
func (c Config) Warnings() []string {
	var w []string
	if lw := c.longEpochWarning(); lw != "" {
		w = append(w, lw)
	}
	for _, l := range c.Factors.Levels() {
		f := c.Factors[l]
		if sw := c.smallBudgetWarning(l, f); sw != "" {
			w = append(w, sw)
		}
		if c.AboveLineRate(f) {
			w = append(w, fmt.Sprintf("level %d: factor %s gives %s (its budget·8/E), above the link rate R=%s: "+
				"the link caps the level at %s (line rate is factor %.6g)",
				l, f, c.BudgetRate(f), c.Rate, c.Rate, c.LineRateFactor()))
		}
	}
	return w
}

// smallBudgetWarning says what a budget smaller than the device's largest frame means for level
// l in this mode; empty for a budget of a frame or more. Police mode drops a frame larger than
// the whole budget. Shape mode's token bucket, (m−1)·f·P, holds at least one frame (the
// dataplane's, htb.go), so a level whose bucket would be smaller does send full frames, one every
// frame/(f·P) epochs at most, and its fan-in bound counts a whole frame a host (levelBurst): said
// so, rather than that it never can. A bucket of a frame or more (m = 3, f = 0.5) changes
// nothing, and is not warned of.
func (c Config) smallBudgetWarning(l Level, f Factor) string {
	frame := c.largestFrame()
	b, ok := c.Budget(f)
	if !ok || b >= frame {
		return ""
	}
	head := fmt.Sprintf("level %d: budget %s per epoch (f·P = %s·%s) is smaller than the device's largest frame, %s on the wire",
		l, b, f, c.Packet, frame)
	if !c.Shaped {
		return head + ": the level can never send a full-size frame"
	}
	perEpoch := f.Value * float64(c.Packet)
	if float64(c.Mesochronous-1)*perEpoch >= float64(frame) {
		return ""
	}
	return fmt.Sprintf("%s, and so is its token bucket (m−1)·f·P: in shape mode the bucket holds one frame all the same, so the "+
		"level sends a full-size frame at most once every %.3g epochs, and its fan-in bound counts a whole frame a host", head,
		float64(frame)/perEpoch)
}

// LongEpoch is the longest epoch Warnings accepts without a word. QJump's guarantee is an epoch
// or two, and its users want microseconds to milliseconds (the paper's ns-2 fabric, 144 hosts at
// 10 Gb/s with P = 9 kB and m = 1, has 1.04 ms; 12 hosts of a 1500-byte MTU at m = 2, 30 µs); an
// epoch of seconds guarantees nothing they would use, and is what a rate given in the wrong unit
// (1M meant as 1 Gb/s) or a host count off by thousands gives.
const LongEpoch = time.Second

// longEpochWarning says what an epoch over LongEpoch means for the top level at factor 1, and
// what to check; empty for a shorter one.
func (c Config) longEpochWarning() string {
	e := c.Epoch()
	if e <= LongEpoch {
		return ""
	}
	return fmt.Sprintf("network epoch %s is over %s: a level at factor 1 sends one P=%s per epoch (%s) "+
		"and waits up to an epoch or two; check R=%s (bits per second) and n=%d",
		durationAbove(e.Seconds()), DurationText(LongEpoch), c.Packet, c.BudgetRate(Limited(1)), c.Rate, c.Hosts)
}
