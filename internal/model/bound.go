package model

import (
	"math"
	"time"
)

// slack absorbs floating-point error when comparing a factor sum with m (1+1 must equal 2).
const slack = 1e-9

// FanIn describes level i under full fan-in: all n hosts send their whole budgets of every level
// j ≥ i to one destination at once.
type FanIn struct {
	// Sum is Σ_{j≥i} f_j over the configured levels; +Inf if any of them is unlimited.
	Sum float64
	// Guaranteed is Sum ≤ m: the worst case drains within the epoch, so Delay is a bound.
	Guaranteed bool
	// Delay is D_i = n·P·8·Sum/R + ε, meaningful only when Guaranteed.
	Delay time.Duration
	// Oversubscription is Sum/m: how many epochs' worth of traffic arrive per epoch (×k).
	Oversubscription float64
}

// FanIn computes the worst-case fan-in of level l given the configured factors.
func (c Config) FanIn(l Level) FanIn {
	sum := 0.0
	for j, f := range c.Factors {
		if j < l {
			continue
		}
		if f.Unlimited {
			sum = math.Inf(1)
			break
		}
		sum += f.Value
	}
	fi := FanIn{Sum: sum, Oversubscription: sum / float64(c.Mesochronous)}
	fi.Guaranteed = sum <= float64(c.Mesochronous)+slack
	if fi.Guaranteed {
		bits := float64(c.Hosts) * float64(c.Packet) * 8 * sum
		ns := math.Ceil(math.Round(bits*1e12/float64(c.Rate)) / 1000)
		fi.Delay = time.Duration(ns) + c.Epsilon
	}
	return fi
}
