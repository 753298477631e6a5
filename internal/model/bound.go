package model

import (
	"math"
	"time"
)

// slack absorbs floating-point error when comparing a factor sum with m (1+1 must equal 2).
const slack = 1e-9

// FanIn describes level i under full fan-in: all n hosts send, to one destination at once, as
// many budgets of every level j ≥ i as they can put on the wire back to back (BurstBudgets).
type FanIn struct {
	// Sum is Σ_{j≥i} f_j over the configured levels; +Inf if any of them is unlimited.
	Sum float64
	// Guaranteed is Sum ≤ m: the levels at or above i offer at most R in the long run, so the
	// destination's queue drains and Delay is a bound.
	Guaranteed bool
	// Delay is D_i = n·b·P·8·Sum/R + ε with b = BurstBudgets (in shape mode each level's b·f·P at
	// least one frame, levelBurst): a bound only when Guaranteed (beyond,
	// the formula's value, which plots continue; 0 when Sum is infinite or D_i beyond MaxEpoch).
	Delay time.Duration
	// Oversubscription is Sum/m: how many epochs' worth of traffic arrive per epoch (×k).
	Oversubscription float64
	// Buffer is n·b·P·Sum, the burst the destination's switch port must be able to queue for Delay
	// to hold (at most that: some of it leaves while the rest arrives); 0 when Sum is infinite.
	// A port with less drops the burst's tail instead of delaying it.
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
	sum, perHost := 0.0, 0.0
	for j, f := range c.Factors {
		if j < l {
			continue
		}
		if f.Unlimited {
			sum, perHost = math.Inf(1), math.Inf(1)
			break
		}
		sum += f.Value
		perHost += c.levelBurst(f.Value)
	}
	fi := FanIn{Sum: sum, Oversubscription: sum / float64(c.Mesochronous)}
	fi.Guaranteed = sum <= float64(c.Mesochronous)+slack
	burst := float64(c.Hosts) * perHost
	if burst < maxBuffer {
		fi.Buffer = Bytes(math.Ceil(burst))
	}
	if ns := math.Ceil(math.Round(burst*8*1e12/float64(c.Rate)) / 1000); ns < float64(MaxEpoch) {
		fi.Delay = time.Duration(ns) + c.Epsilon
	}
	return fi
}

// maxBuffer is the largest port burst FanIn counts in Bytes (an int64), with room to add.
const maxBuffer = math.MaxInt64 / 2
