package model

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MaxEpoch is the longest epoch the model accepts. The simulator's clock counts picoseconds in an
// int64 (about 106 days) and the dataplane's nanoseconds; an epoch beyond 100 days means a rate or
// a host count that is a typo, and one beyond the clocks would wrap to a negative epoch.
const MaxEpoch = 100 * 24 * time.Hour

// maxBudget is the largest budget the model computes exactly in float64 (2^53 bytes, 9 PB).
const maxBudget = 1 << 53

// MaxShapedBucket is the largest token bucket shape mode can give a level, in bytes of packet
// (the wire overhead, FrameOverhead, comes on top): Linux's TBF takes its bucket as a u32 of
// bytes, and the dataplane lets a level queue two buckets, a limit that is a u32 too.
const MaxShapedBucket = math.MaxUint32 / 2

// ShapedBucket is the wire bytes of the token bucket that shape mode gives a limited level of
// factor f, (m−1)·f·P (the dataplane adds at least one frame), and whether the level is shaped
// at all: a level whose budget allows R or more is left to the link.
func (c Config) ShapedBucket(f Factor) (bucket float64, shaped bool) {
	b, limited := c.Budget(f)
	if !limited || c.LevelRate(f) >= c.Rate {
		return 0, false
	}
	return float64(c.Mesochronous-1) * float64(b), true
}

// epochBits is m·n·P·8, the bits of the transmission part of the epoch.
func (c Config) epochBits() float64 {
	return float64(c.Mesochronous) * float64(c.Hosts) * float64(c.Packet) * 8
}

// transmissionTime is the epoch's transmission part m·n·P·8/R, rounded up to the nanosecond as
// Epoch rounds it, for the refusals that weigh ε against it.
func (c Config) transmissionTime() time.Duration {
	return time.Duration(math.Ceil(c.epochBits() * 1e9 / float64(c.Rate)))
}

// validateEpoch refuses an epoch the clocks cannot hold. Each refusal names every input that makes
// the epoch what it is: n, m, P and R for a transmission part too long on its own (ε cannot shorten
// it); those and ε for an epoch too long with ε. ε alone is named when it is MaxEpoch or more, too
// long whatever the others are. (An epoch too short to count, under half a picosecond, cannot
// be: R is at most MaxRate, at which one minimum frame takes 0.672ps.)
func (c Config) validateEpoch() error {
	switch c.epochFault() {
	case transmissionTooLong:
		return c.epochTooLong(c.epochBits()/float64(c.Rate), false)
	case epsilonTooLong:
		if move := c.epsilonMove(); move != "" {
			return fieldError("epsilon", FormatDuration(c.Epsilon), fmt.Sprintf(
				"the epoch m·n·P·8/R + ε would be longer than %s: need %s", DurationText(MaxEpoch), move))
		}
		// No ε fits: a fan-in delay is too long without it, so the others must move too.
		return c.epochTooLong((c.transmissionTime() + c.Epsilon).Seconds(), true)
	case epochTooLongWithEpsilon:
		return c.epochTooLong((c.transmissionTime() + c.Epsilon).Seconds(), true)
	}
	return nil
}

// epochFault is what is wrong with an epoch, for validateEpoch to word and for lengthsFit to ask
// without the words.
type epochFault int

const (
	epochFits               epochFault = iota
	transmissionTooLong                // m·n·P·8/R alone is longer than MaxEpoch
	epsilonTooLong                     // ε alone is MaxEpoch or more
	epochTooLongWithEpsilon            // m·n·P·8/R fits, with ε it does not
)

func (c Config) epochFault() epochFault {
	bits := c.epochBits()
	ns := bits * 1e9 / float64(c.Rate)
	switch {
	case !(ns <= float64(MaxEpoch)) || math.IsInf(bits, 0):
		return transmissionTooLong
	case c.Epsilon >= MaxEpoch:
		return epsilonTooLong
	case c.Epsilon > MaxEpoch-c.transmissionTime():
		return epochTooLongWithEpsilon
	}
	return epochFits
}

// lengthsFit says whether the epoch and every guaranteed level's worst-case fan-in (its delay
// and its port burst) fit what the model holds: what each move of an epoch refusal must clear.
// The fan-in delay is longer than the epoch where b·Σf > m (police mode's b = 2 at m = 1, or
// levels summing past 1 at m = 2) or levels above go on sending, so a move found from the epoch
// alone would be refused again by the next check.
func (c Config) lengthsFit() bool {
	if c.epochFault() != epochFits {
		return false
	}
	for _, l := range c.Factors.Levels() {
		if c.validateFanIn(l) != nil {
			return false
		}
	}
	return true
}

// epochTooLong refuses an epoch of s seconds, longer than MaxEpoch, naming the inputs that make
// it, each with the way to move it and how far with the others as they are: n, m, P and R, and ε
// when withEpsilon (the transmission part alone fits, ε takes the rest and more). How far is
// found by asking lengthsFit, so that each move is enough on its own for the epoch and for every
// guaranteed level's fan-in delay.
func (c Config) epochTooLong(s float64, withEpsilon bool) error {
	epoch := "the epoch m·n·P·8/R"
	moves := c.transmissionMoves()
	inputs := c.transmissionInputs()
	if withEpsilon {
		epoch += " + ε"
		moves = fmt.Sprintf("a shorter m·n·P·8/R (%s now): %s", durationAbove(c.transmissionTime().Seconds()), moves)
		if eps := c.epsilonMove(); eps != "" {
			moves = eps + ", or " + moves
		}
		inputs = append(inputs, Input{Field: "epsilon", Value: FormatDuration(c.Epsilon)})
	}
	length := durationAbove(s) + ", "
	if length == DurationText(MaxEpoch)+", " { // just over: four digits would read as the limit
		length = ""
	}
	return fieldsError(fmt.Sprintf("they make %s %slonger than %s (100 days): need %s, each with the others as they are",
		epoch, length, DurationText(MaxEpoch), moves), inputs...)
}

// transmissionMoves lists the moves of n, m, P and R that each make the lengths fit
// (lengthsFit) with the others as they are, with how far: "fewer hosts (at most 351), a smaller m
// (at most 2) or P (at most 900B), or a faster R (at least 17.09Gb/s)". A move that is not
// enough on its own is left out (m is at least 1; P at least one minimum frame, and large
// enough that every level's budget carries one; R at most MaxRate), and where none is the four
// are named without a figure.
func (c Config) transmissionMoves() string {
	var moves, smaller []string
	if most := c.largestFitting(1, int64(c.Hosts)-1, func(d *Config, v int64) { d.Hosts = int(v) }); most >= 1 {
		moves = append(moves, fmt.Sprintf("fewer hosts (at most %d)", most))
	}
	if most := c.largestFitting(1, int64(c.Mesochronous)-1, func(d *Config, v int64) { d.Mesochronous = int(v) }); most >= 1 {
		smaller = append(smaller, fmt.Sprintf("m (at most %d)", most))
	}
	// P as a message prints it (four digits from 100 kB), so that the P it gives is allowed.
	setPacket := func(d *Config, v int64) { d.Packet = floorBytes(float64(v)) }
	if most := c.largestFitting(int64(MinPacket), int64(c.Packet)-1, setPacket); most >= int64(MinPacket) && c.budgetsFit(floorBytes(float64(most))) {
		smaller = append(smaller, fmt.Sprintf("P (at most %s)", floorBytes(float64(most))))
	}
	if len(smaller) > 0 {
		moves = append(moves, "a smaller "+strings.Join(smaller, " or "))
	}
	if least := c.leastFittingRate(); least > 0 {
		moves = append(moves, fmt.Sprintf("a faster R (at least %s)", least))
	}
	switch len(moves) {
	case 0:
		return "fewer hosts, a smaller m or P, or a faster R"
	case 1, 2:
		return strings.Join(moves, " or ")
	}
	return strings.Join(moves[:len(moves)-1], ", ") + ", or " + moves[len(moves)-1]
}

// budgetsFit says whether every level's budget f·P still carries a minimum frame (and, in shape
// mode, fits the shaper) with P = p: a smaller P shortens the epoch but shrinks the budgets, so a
// P that the lengths allow may be refused by the next check (f7 = 0.05 at P = 540 B is 27 B).
func (c Config) budgetsFit(p Bytes) bool {
	d := c
	d.Packet = p
	for _, l := range d.Factors.Levels() {
		if d.validateFactor(l, d.Factors[l]) != nil {
			return false
		}
	}
	return true
}

// largestFitting is the largest v in [lo, hi] for which c with set(v) applied passes lengthsFit,
// or lo−1 if none does; set moves one input, and a smaller value must never lengthen what
// lengthsFit checks (fewer hosts, a smaller m, P or ε only ever shorten the epoch and the fan-in
// delays).
func (c Config) largestFitting(lo, hi int64, set func(d *Config, v int64)) int64 {
	fits := func(v int64) bool {
		d := c
		set(&d, v)
		return d.lengthsFit()
	}
	if hi < lo || !fits(lo) {
		return lo - 1
	}
	for lo < hi { // fits(lo) holds
		mid := lo + (hi-lo+1)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// leastFittingRate is the least R, as Rate prints it, with which the lengths fit (lengthsFit)
// with the others as they are; 0 if no rate up to MaxRate does.
func (c Config) leastFittingRate() Rate {
	fits := func(r float64) bool { d := c; d.Rate = Rate(r); return d.lengthsFit() }
	if !fits(float64(MaxRate)) {
		return 0
	}
	lo, hi := float64(c.Rate), min(float64(c.Rate)*2, float64(MaxRate))
	for !fits(hi) {
		lo, hi = hi, min(hi*2, float64(MaxRate))
	}
	for i := 0; i < 200 && hi > lo*(1+1e-12); i++ {
		if mid := lo + (hi-lo)/2; fits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	r := ceilRate(hi)
	for i := 0; i < 3 && !fits(float64(r)); i++ {
		r = ceilRate(float64(r) * (1 + 1e-4))
	}
	if !fits(float64(r)) || r > MaxRate {
		return 0
	}
	return r
}

// epsilonMove is "ε at most X", the largest ε with which the lengths fit (lengthsFit) with the
// others as they are, printed so that it is allowed: "2399h" where four digits of it fall below
// MaxEpoch, else MaxEpoch less what the rest takes, rounded up ("2400h − 29.53µs"), since where ε
// is within microseconds of the limit its four digits read as the limit itself. Empty where no ε
// fits.
func (c Config) epsilonMove() string {
	setEpsilon := func(d *Config, v int64) { d.Epsilon = time.Duration(v) }
	most := time.Duration(c.largestFitting(0, int64(min(c.Epsilon, MaxEpoch)), setEpsilon))
	if most < 0 {
		return ""
	}
	if text := DurationAtMost(most); text != DurationText(MaxEpoch) {
		return "ε at most " + text
	}
	return "ε at most " + DurationText(MaxEpoch) + " − " + durationAbove((MaxEpoch - most).Seconds())
}

// transmissionInputs are the inputs of the epoch's transmission part m·n·P·8/R, as the refusals
// of an epoch name them together.
func (c Config) transmissionInputs() []Input {
	return []Input{
		{Field: "hosts", Value: strconv.Itoa(c.Hosts)},
		{Field: "mesochronous", Value: strconv.Itoa(c.Mesochronous)},
		{Field: "packet", Value: c.Packet.String()},
		{Field: "rate", Value: c.Rate.String()},
	}
}

// floorBytes is b rounded down to what Bytes prints, so that a largest size a message gives is
// allowed.
func floorBytes(b float64) Bytes {
	if b < 100_000 {
		return Bytes(b)
	}
	return Bytes(floorSig(b))
}

// validateFactor refuses a level out of range, a factor that is not a positive number, and a
// budget that cannot carry one minimum frame: such a level could never send anything.
func (c Config) validateFactor(l Level, f Factor) error {
	if l < 0 || l >= NumLevels {
		return fieldError("factors", strconv.Itoa(int(l)), levelAllowed)
	}
	if f.Unlimited {
		return nil
	}
	value := fmt.Sprintf("%d=%s", l, f)
	if !(f.Value > 0) || math.IsInf(f.Value, 0) {
		return fieldError("factors", value, "need a factor greater than 0, or \"unlimited\"")
	}
	if f.Value*float64(c.Packet) > maxBudget {
		return fieldError("factors", value, fmt.Sprintf("need a factor of at most %s: f·P must fit in %s",
			Limited(math.Floor(maxBudget/float64(c.Packet))), Bytes(maxBudget)))
	}
	if b, _ := c.Budget(f); b < MinWireFrame {
		return fieldError("factors", value, fmt.Sprintf(
			"level %d's budget f·P = %s is smaller than one minimum frame on the wire (%s), so it could "+
				"never send anything: need a factor of at least %s with P=%s",
			l, b, MinWireFrame, Limited(ceilSig(float64(MinWireFrame)/float64(c.Packet))), c.Packet))
	}
	if c.Shaped {
		return c.validateShapedBucket(l, f, value)
	}
	return nil
}

// validateShapedBucket refuses, in shape mode, a level whose token bucket is larger than the
// shaper holds (MaxShapedBucket). calc must refuse it as up does: the bound it prints counts
// that bucket, and no host could build it.
func (c Config) validateShapedBucket(l Level, f Factor, value string) error {
	bucket, shaped := c.ShapedBucket(f)
	if !shaped || FitsShaper(bucket) {
		return nil
	}
	most := c.largestShapedBudget() / float64(c.Packet)
	have, holds := shaperFigures(bucket)
	return fieldError("factors", value, fmt.Sprintf(
		"level %d's bucket in shape mode, (m−1)·f·P = %s, is more than a TBF holds (%s): "+
			"need a factor of at most %s with P=%s and m=%d, or mode police",
		l, have, holds, Limited(floorSig(most)), c.Packet, c.Mesochronous))
}

// FitsShaper says whether a bucket of these wire bytes fits the shaper (MaxShapedBucket counts
// bytes of packet): the model's validation and the dataplane's egress plan ask the same.
func FitsShaper(bucket float64) bool { return bucket-float64(FrameOverhead) <= MaxShapedBucket }

// largestShapedBudget is the largest budget f·P whose bucket (m−1)·f·P fits the shaper; m ≥ 2.
func (c Config) largestShapedBudget() float64 {
	return (MaxShapedBucket + float64(FrameOverhead)) / float64(c.Mesochronous-1)
}

// shaperFigures prints a bucket over the shaper's limit and that limit, with every byte where the
// rounded figures would read alike (a bucket just over).
func shaperFigures(bucket float64) (have, holds string) {
	have, holds = Bytes(bucket).String(), Bytes(MaxShapedBucket).String()
	if have == holds {
		have, holds = fmt.Sprintf("%.0fB", bucket), fmt.Sprintf("%dB", MaxShapedBucket)
	}
	return have, holds
}

// validateFanIn refuses a guaranteed level whose bound calc could not print: a worst-case
// fan-in delay beyond MaxEpoch, or a port burst beyond what Bytes counts. Either takes an epoch
// of months and factors in the billions (m = 10^11 gives a burst of 10^20 bytes); like such an
// epoch, it is a typo, and printed it would read 0s and 0B.
func (c Config) validateFanIn(l Level) error {
	fi := c.FanIn(l)
	if !fi.Guaranteed { // an unlimited level at or above is never guaranteed
		return nil
	}
	value := fmt.Sprintf("%d=%s", l, c.Factors[l])
	if fi.Buffer == 0 {
		return fieldError("factors", value, fmt.Sprintf(
			"level %d's worst-case port burst n·b·P·Σf would be more than %s, beyond what calc counts: "+
				"need smaller factors at or above level %d", l, Bytes(maxBuffer), l))
	}
	if fi.Delay == 0 || fi.Delay > MaxEpoch {
		// The factors and R together: the message asks for either to move, and a check that
		// stands in for a rate not yet given (config.File.Apply) must see that R is part of it.
		return fieldsError(fmt.Sprintf(
			"level %d's worst-case fan-in delay would be longer than %s (100 days): "+
				"need smaller factors at or above level %d, or a faster R than %s", l, DurationText(MaxEpoch), l, c.Rate),
			Input{Field: "factors", Value: value}, Input{Field: "rate", Value: c.Rate.String()})
	}
	return nil
}

// CheckTargetRates refuses a target rate that no factor can reach: one above R (a level never
// sends faster than its link), one whose budget per epoch is smaller than one minimum frame on
// the wire, or in shape mode one whose bucket no TBF holds. c must be valid. WithTargetRates
// solves what passes.
func (c Config) CheckTargetRates(rates map[Level]Rate) error {
	levels := make([]Level, 0, len(rates))
	for l := range rates {
		levels = append(levels, l)
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i] > levels[j] })
	for _, l := range levels {
		t := rates[l]
		value := fmt.Sprintf("%d=%s", l, t)
		switch {
		case l < 0 || l >= NumLevels:
			return fieldError("target-rate", value, levelAllowed)
		case !(t > 0) || math.IsInf(float64(t), 0):
			return fieldError("target-rate", value, rateAllowed)
		case t > c.Rate:
			return fieldError("target-rate", value, fmt.Sprintf(
				"need at most R = %s: a level cannot send faster than its link", c.Rate))
		}
		if f := c.FactorForRate(t); f*float64(c.Packet) > maxBudget {
			// Said of the rate the user gave, not of a factor they never wrote (review, helper-93).
			return fieldError("target-rate", value, fmt.Sprintf(
				"its budget per epoch E = %s would be more than %s, beyond what a budget holds: need at most %s, or a shorter epoch",
				DurationText(c.Epoch()), Bytes(maxBudget), c.rateOf(maxBudget)))
		}
		if b, _ := c.Budget(Limited(c.FactorForRate(t))); b < MinWireFrame {
			return fieldError("target-rate", value, fmt.Sprintf(
				"its budget would be %s per epoch E = %s, less than one minimum frame on the wire (%s): "+
					"need at least %s", b, DurationText(c.Epoch()), MinWireFrame, c.MinTargetRate()))
		}
		if err := c.checkShapedTarget(t, value); err != nil {
			return err
		}
	}
	return nil
}

// checkShapedTarget refuses, in shape mode, a target rate whose factor would give a bucket no TBF
// holds (validateShapedBucket), in terms of the rate the user gave rather than a factor they
// never wrote.
func (c Config) checkShapedTarget(t Rate, value string) error {
	if !c.Shaped {
		return nil
	}
	bucket, shaped := c.ShapedBucket(Limited(c.FactorForRate(t)))
	if !shaped || FitsShaper(bucket) {
		return nil
	}
	most := Rate(floorSig(c.largestShapedBudget() * 8 / c.Epoch().Seconds()))
	have, holds := shaperFigures(bucket)
	return fieldError("target-rate", value, fmt.Sprintf(
		"in shape mode its bucket, (m−1)·f·P, would be %s, more than a TBF holds (%s): "+
			"need at most %s with E = %s and m=%d, or mode police",
		have, holds, most, DurationText(c.Epoch()), c.Mesochronous))
}

// MinTargetRate is the smallest rate, to four significant digits, whose budget carries one
// minimum frame per epoch. FactorForRate rounds a target's budget up to a whole byte, so that is
// the least rate above 83 bytes an epoch, (MinWireFrame−1)·8/E, rounded up until solving it gives
// MinWireFrame.
func (c Config) MinTargetRate() Rate {
	r := ceilRate(float64(MinWireFrame-1) * 8 / c.Epoch().Seconds())
	for i := 0; i < 3; i++ {
		if b, _ := c.Budget(Limited(c.FactorForRate(r))); b >= MinWireFrame {
			break
		}
		r = ceilRate(float64(r) * (1 + 1e-4))
	}
	return r
}

// ceilRate rounds a rate up to the four significant digits Rate.String prints, so that what an
// error message says is enough is enough.
func ceilRate(r float64) Rate { return Rate(ceilSig(r)) }

// ceilSig rounds v > 0 up to four significant digits. The nudge keeps a figure that is
// already four digits but for float noise where it is: 23.340000000001 is 23.34, not 23.35.
func ceilSig(v float64) float64 { return roundSig(v, roundUp.round, roundUp.nudge) }

// floorSig rounds v > 0 down to four significant digits, so that a largest value an error
// message gives is allowed: 23.349999999999 is 23.35, not 23.34.
func floorSig(v float64) float64 { return roundSig(v, roundDown.round, roundDown.nudge) }

// roundSig rounds v·nudge to four significant digits with round. A power of ten is exact only
// with a non-negative exponent, so the scale is applied by division or multiplication as needed.
func roundSig(v float64, round func(float64) float64, nudge float64) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return v
	}
	e := 3 - int(math.Floor(math.Log10(v)))
	if e < 0 {
		s := math.Pow(10, float64(-e))
		return round(v/s*nudge) * s
	}
	s := math.Pow(10, float64(e))
	return round(v*s*nudge) / s
}
