package model

import (
	"math"
	"strconv"
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
	return Bytes(math.Floor(f.Value * float64(c.Packet) * (1 + budgetSlack))), true
}

// budgetSlack is how far below a whole byte f·P may fall from float error and still be that
// byte: a factor solved for a rate (FactorForRate) is 1.9999999999999998 where 2 was meant, and a
// plain floor gave a budget of 3075B for 2·1538B, one byte short of the rate calc printed. It is
// far above float64's error (2.2e-16) and far below any factor a user can mean (a budget of 10⁶
// bytes moves by 10⁻⁶ of a byte).
const budgetSlack = 1e-12

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

// FactorForRate solves T = f·P·8/E for f: f = T·E/(8·P), to 12 significant digits, so that a rate
// that is a whole number of budgets solves to that number (2, not 1.9999999999999998, which a
// configuration then shows and writes back).
func (c Config) FactorForRate(t Rate) float64 {
	f := float64(t) * c.Epoch().Seconds() / (8 * float64(c.Packet))
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	if err != nil {
		return f
	}
	return r
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
