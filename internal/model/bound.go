package model

import (
	"math"
	"time"
)

// slack absorbs floating-point error when comparing a factor sum with m (1+1 must equal 2).
const slack = 1e-9

// FanIn describes level i under full fan-in: all n hosts send, to one destination at once, as
// many budgets of every level j ≥ i as they can put on the wire back to back (BurstBudgets), and
// the levels above i go on sending every budget they get while level i's part drains.
type FanIn struct {
	// Sum is Σ_{j≥i} f_j over the configured levels; +Inf if any of them is unlimited.
	Sum float64
	// Guaranteed is Sum ≤ R·E/(8·n·P) (m, and more where ε lengthens the epoch): the levels at
	// or above i offer at most R in the long run, so the destination's queue drains and Delay is
	// a bound.
	Guaranteed bool
	// Delay is when level i's last byte of the fan-in leaves the destination's port: the hosts'
	// bursts, n·b·P·8·Σf/R with b = BurstBudgets (in shape mode each level's b·f·P at least one
	// frame, levelBurst), ε, and every budget the levels above i get meanwhile, which strict
	// priority serves first (higherLevelsDrain). At the top level that is the burst and ε. A
	// bound only when Guaranteed; beyond, the burst's drain time and ε, which plots continue (0
	// when Sum is infinite or D_i beyond MaxEpoch).
	Delay time.Duration
	// Oversubscription is Sum·n·P·8/(E·R): how many epochs' worth of traffic arrive per epoch
	// (×k), Sum/m where ε is 0.
	Oversubscription float64
	// Buffer is n·b·P·Sum, the burst the destination's switch port must be able to queue for Delay
	// to hold (at most that: some of it leaves while the rest arrives, and the levels' later
	// budgets arrive no faster than the port sends); 0 when Sum is infinite. A port with less
	// drops the burst's tail instead of delaying it.
	Buffer Bytes
}

// BurstBudgets is b, how many budgets of a level one host can put on the wire back to back: what
// every host adds to the destination's queue in the worst case of a fan-in.
//
// Policing (the dataplane's police mode, the default) gives each epoch of the host's clock a fresh
// budget, so a host can send one budget at the very end of an epoch and the next at the start of
// the following one: two, whatever m. That is what m = 2 pays for: with E = 2·n·P·8/R + ε, the
// top level at factor 1 is delivered within one epoch, the paper's bound (§3.1). Shaping (shape
// mode) sends each level through a token bucket of (m−1)·f·P filled at f·P per epoch, so a host's
// burst is m−1 budgets, and at least one (the bucket then holds one frame): at m = 2, half of
// policing's.
func (c Config) BurstBudgets() float64 {
	if c.Shaped {
		return max(float64(c.Mesochronous-1), 1)
	}
	return 2
}

// levelBurst is the wire bytes one host can put on the wire back to back at a level of factor f:
// b budgets, and in shape mode at least one frame, since a token bucket holds a whole frame even
// where (m−1)·f·P is less (a level of f < 1/(m−1)), and lets it go at once.
func (c Config) levelBurst(f float64) float64 {
	b := c.BurstBudgets() * f * float64(c.Packet)
	if c.Shaped {
		b = max(b, float64(c.largestFrame()))
	}
	return b
}

// FanIn computes the worst-case fan-in of level l given the configured factors.
func (c Config) FanIn(l Level) FanIn {
	sum, above, perHost := 0.0, 0.0, 0.0
	for j, f := range c.Factors {
		if j < l {
			continue
		}
		if f.Unlimited {
			sum, perHost = math.Inf(1), math.Inf(1)
			break
		}
		sum += f.Value
		if j > l {
			above += f.Value
		}
		perHost += c.levelBurst(f.Value)
	}
	// R·E/(8·n·P) with E unrounded: m, and what ε adds (m itself where ε is 0).
	lineSum := float64(c.Mesochronous) + c.Epsilon.Seconds()*float64(c.Rate)/(8*float64(c.Hosts)*float64(c.Packet))
	fi := FanIn{Sum: sum, Oversubscription: sum / lineSum}
	fi.Guaranteed = sum <= lineSum+slack
	burst := float64(c.Hosts) * perHost
	if burst < maxBuffer {
		fi.Buffer = Bytes(math.Ceil(burst))
	}
	// ε is inside the drain, not added after it: below the top, whatever holds the burst back
	// (a lower level's frame being sent, a switch's processing) lets more budgets of the levels
	// above in first (review, helper-91: one frame of level 0 in service added a whole epoch's
	// budgets of level 7 to level 6's delay, where ε added after it had room for one frame).
	// The drain is in picoseconds beyond ε, which is added as it is: an ε of days in picoseconds
	// would lose the drain's last digits in a float64.
	drain := burst * 8 * 1e12 / float64(c.Rate)
	if fi.Guaranteed {
		drain = c.higherLevelsDrain(drain, above)
	}
	if ns := math.Ceil(math.Round(drain) / 1000); ns < float64(MaxEpoch) {
		fi.Delay = time.Duration(ns) + c.Epsilon
	}
	return fi
}

// higherLevelsDrain is when the last byte of a fan-in leaves the port, in picoseconds after ε, for
// a level whose part would have left burst picoseconds after ε were nothing above it, when the
// levels above, of factors summing to above, go on sending: strict priority serves each of
// their budgets first, however late it arrives (review, helper-84: the burst alone gave 2E for
// levels 7 and 6 at factor 1, where level 6's last byte can leave at 3E). above must be under
// R·E/(8·n·P), as it is for a guaranteed level.
//
// Police mode gives each host a fresh budget of every level at each of its epochs, so in a window
// of length d the levels above send at most 1+⌈d/E⌉ budgets of each host: the two of the burst
// and ⌈d/E⌉−1 more, each a = n·above·P·8/R of line time. d is the least time with
// d = ε + burst + (⌈d/E⌉−1)·a, which is ε + burst + k·a for the least k ≥ 0 with
// ε + burst + k·a ≤ (k+1)·E. Shape mode fills each level's token bucket continuously, at f·P per
// epoch: the port has R·(1 − a/E) left for the burst, which then leaves by (ε + burst)/(1 − a/E)
// (network calculus' delay bound for a token-bucket flow under strict priority, with ε as the
// latency of the port's service).
func (c Config) higherLevelsDrain(burst, above float64) float64 {
	if above == 0 {
		return burst
	}
	eps := float64(c.Epsilon) * 1000
	tx := float64(c.Epoch()-c.Epsilon) * 1000 // E − ε: the epoch's transmission part, so that ε cancels exactly
	a := float64(c.Hosts) * above * float64(c.Packet) * 8 * 1e12 / float64(c.Rate)
	if c.Shaped {
		r := a / (tx + eps)
		return burst + (eps+burst)*r/(1-r)
	}
	k := max(0, math.Ceil((burst-tx)/(tx+eps-a)-slack))
	return burst + k*a
}

// maxBuffer is the largest port burst FanIn counts in Bytes (an int64), with room to add.
const maxBuffer = math.MaxInt64 / 2
