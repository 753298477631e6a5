package model

import (
	"math"
	"time"
)

// EpochPicoseconds is the transmission part of the epoch, m·n·P·8/R, in picoseconds (the
// simulator's clock), rounded to the nearest picosecond. It excludes ε.
func (c Config) EpochPicoseconds() int64 {
	return int64(math.Round(c.epochBits() * 1e12 / float64(c.Rate)))
}

// Epoch is the network epoch E = m·n·P·8/R + ε in whole nanoseconds (the dataplane's clock). The
// transmission part is rounded up: a longer epoch only makes budgets safer.
func (c Config) Epoch() time.Duration {
	ps := c.EpochPicoseconds()
	return time.Duration((ps+999)/1000) + c.Epsilon
}

// Budget is f·P, the bytes a level may send per epoch, rounded down so that the budget never
// exceeds the model. ok is false for an unlimited level, which has no budget.
func (c Config) Budget(f Factor) (b Bytes, ok bool) {
	if f.Unlimited {
		return 0, false
	}
	return Bytes(math.Floor(f.Value * float64(c.Packet))), true
}

// LevelRate is T = f·P·8/E capped at R: an unlimited level sends at line rate, and so does a level
// whose factor is above LineRateFactor, because its budget allows more than the link can carry
// (tests use such factors to make a budget large; the link, not the budget, then limits).
func (c Config) LevelRate(f Factor) Rate {
	if f.Unlimited {
		return c.Rate
	}
	return min(c.BudgetRate(f), c.Rate)
}

// BudgetRate is T = f·P·8/E for a limited factor, uncapped: what the budget alone would allow.
func (c Config) BudgetRate(f Factor) Rate {
	return Rate(f.Value * float64(c.Packet) * 8 / c.Epoch().Seconds())
}

// AboveLineRate says that f's budget allows more than R. The margin keeps a factor solved for
// exactly R (--target-rate L=R) from counting as above it through rounding.
func (c Config) AboveLineRate(f Factor) bool {
	return !f.Unlimited && float64(c.BudgetRate(f)) > float64(c.Rate)*(1+1e-9)
}

// FactorForRate solves T = f·P·8/E for f: f = T·E/(8·P).
func (c Config) FactorForRate(t Rate) float64 {
	return float64(t) * c.Epoch().Seconds() / (8 * float64(c.Packet))
}

// WithTargetRates returns c with the factor of each level in rates solved for that rate
// (FactorForRate), replacing the level's factor if it had one. c itself is not changed.
func (c Config) WithTargetRates(rates map[Level]Rate) Config {
	factors := make(Factors, len(c.Factors)+len(rates))
	for l, f := range c.Factors {
		factors[l] = f
	}
	for l, t := range rates {
		factors[l] = Limited(c.FactorForRate(t))
	}
	c.Factors = factors
	return c
}

// LineRateFactor is the factor at which a level may send at R: m·n plus what ε adds.
func (c Config) LineRateFactor() float64 {
	return c.FactorForRate(c.Rate)
}
