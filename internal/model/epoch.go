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
	return wholeBytes(math.Floor(f.Value * float64(c.Packet) * (1 + budgetSlack))), true
}

// maxWholeBudget is the largest budget counted in whole bytes (Bytes, an int64, with room to
// add): beyond it a budget is a float's figure, never a whole byte a frame could miss. A 1000Tb/s
// link carries 10^21 bytes in an epoch of 100 days, more than an int64 holds (review, helper-93:
// the line budget wrapped negative and every level read as above the link).
const maxWholeBudget = 1 << 62

// wholeBytes is b, whole, as Bytes, at most maxWholeBudget.
func wholeBytes(b float64) Bytes {
	if b >= maxWholeBudget {
		return maxWholeBudget
	}
	return Bytes(b)
}

// budgetSlack is how far below a whole byte f·P may fall from float error and still be that
// byte: a factor solved for a rate (FactorForRate) is 1.9999999999999998 where 2 was meant, and a
// plain floor gave a budget of 3075B for 2·1538B, one byte short of the rate calc printed. It is
// far above float64's error (2.2e-16) and far below any factor a user can mean (a budget of 10⁶
// bytes moves by 10⁻⁶ of a byte).
const budgetSlack = 1e-12

// LevelRate is the rate level f's budget delivers, BudgetRate, capped at R: an unlimited level
// sends at line rate, and so does a level whose budget is above LineBudget, since it allows more
// than the link can carry (tests use such factors to make a budget large; the link, not the
// budget, then limits).
func (c Config) LevelRate(f Factor) Rate {
	if f.Unlimited {
		return c.Rate
	}
	return min(c.BudgetRate(f), c.Rate)
}

// BudgetRate is T = B·8/E for a limited factor, uncapped, with B its budget as Budget rounds it
// down to a whole byte: what the level can send. f·P·8/E before rounding read faster than the
// level is held to (7=1.99 at P = 84B: 829.1 Mb/s printed, 167B a 1.613µs epoch is 828.3 Mb/s).
func (c Config) BudgetRate(f Factor) Rate {
	b, _ := c.Budget(f)
	return c.rateOf(float64(b))
}

// rateOf is the rate of b bytes per epoch.
func (c Config) rateOf(b float64) Rate {
	return Rate(b * 8 / c.Epoch().Seconds())
}

// LineBudget is what the link carries in one epoch, R·E/8, rounded up to a whole byte: the
// smallest budget that sends at R.
func (c Config) LineBudget() Bytes {
	return budgetAtLeast(float64(c.Rate) * c.Epoch().Seconds() / 8)
}

// budgetAtLeast is the smallest whole budget of at least b bytes; float error just above a whole
// byte (3076.0000000000005 for 2·1538) is that byte, as in Budget.
func budgetAtLeast(b float64) Bytes {
	return wholeBytes(math.Ceil(b * (1 - budgetSlack)))
}

// AboveLineRate says that f's budget allows more than R: more than LineBudget, the whole bytes the
// link carries in an epoch. Counted in whole bytes, a factor solved for exactly R (--target-rate
// L=R) is at LineBudget, not above it.
func (c Config) AboveLineRate(f Factor) bool {
	b, limited := c.Budget(f)
	if line := c.LineBudget(); b < maxWholeBudget && line < maxWholeBudget {
		return limited && b > line
	}
	// Beyond whole bytes: the figures themselves, with a float's margin.
	return limited && f.Value*float64(c.Packet) > float64(c.Rate)*c.Epoch().Seconds()/8*(1+1e-9)
}

// FactorForRate solves T = B·8/E for the factor whose budget B reaches T: B = T·E/8 rounded up to
// a whole byte, since a budget is whole bytes and one rounded down would fall short of T
// (--target-rate 5=5G printed 4.99993 Gb/s with 18456B), and f = B/P to 12 significant digits, so
// that a rate that is a whole number of budgets solves to that number (2, not 1.9999999999999998,
// which a configuration then shows and writes back), rounded so that Budget gives B again.
func (c Config) FactorForRate(t Rate) float64 {
	raw := float64(t) * c.Epoch().Seconds() / 8
	if raw >= maxWholeBudget {
		return raw / float64(c.Packet) // beyond whole bytes: nothing to round
	}
	b := budgetAtLeast(raw)
	f := float64(b) / float64(c.Packet)
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	if err != nil || !(r > 0) {
		return f
	}
	if got, _ := c.Budget(Limited(r)); got < b {
		// Rounded down past what the budget's slack forgives: the next 12-digit figure up.
		r += math.Pow(10, math.Floor(math.Log10(r))-11)
	}
	if got, _ := c.Budget(Limited(r)); got != b {
		return f // a budget beyond 12 digits' reach (over 10^11 bytes): B/P as it is
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

// LineRateFactor is the factor at which a level may send at R, LineBudget/P: m·n plus what ε and
// the epoch's and budget's rounding add.
func (c Config) LineRateFactor() float64 {
	return c.FactorForRate(c.Rate)
}
