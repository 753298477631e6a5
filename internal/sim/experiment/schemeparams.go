package experiment

import (
	"fmt"
	"math/big"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// The scheme parameters that depend on the fabric: what --edge-rate may be for each scheme, and
// what the schemes' configurations become on a fabric other than the paper's.

// ns2Rate is the edge rate the authors' ns-2 levels were written for: level 0's budget,
// 10.5 Mbit per NS2Interval, is 10 Gb/s.
const ns2Rate = 10 * sim.Gbps

// NS2IntervalAt is the authors' interval on edge links of rate: NS2Interval · 10 Gb/s / rate,
// to the picosecond. Each budget stays the size of the flows its level takes, so a flow's
// first transmission still fits its interval, and each level keeps its share of the line: level
// 0 its line rate. This is what QJump's own epoch n·P/R does with R while budgets f·P stay;
// kept at 1.05 ms on 40 Gb/s edges, level 0 would be held to a quarter of the line. ok is false
// for an interval over model.MaxEpoch, which the picosecond clock cannot hold.
func NS2IntervalAt(rate sim.Rate) (interval sim.Time, ok bool) {
	if rate == ns2Rate {
		return NS2Interval, true
	}
	q := divRound(ns2Bits(), big.NewInt(int64(rate)))
	if q.Cmp(maxEpochPs()) > 0 {
		return 0, false
	}
	return sim.Time(q.Int64()), true
}

// ns2Bits is NS2Interval · 10 Gb/s, in picosecond-bits per second: over an int64.
func ns2Bits() *big.Int {
	return new(big.Int).Mul(big.NewInt(int64(NS2Interval)), big.NewInt(int64(ns2Rate)))
}

// maxEpochPs is model.MaxEpoch in picoseconds.
func maxEpochPs() *big.Int { return big.NewInt(int64(model.MaxEpoch) * int64(sim.Nanosecond)) }

// divRound is a / b rounded to the nearest whole number, halves up; a, b > 0.
func divRound(a, b *big.Int) *big.Int {
	q, rem := new(big.Int).QuoRem(a, b, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(b) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// checkNS2Rate refuses an edge rate at which qjump-ns2's interval is longer than the clocks hold.
func checkNS2Rate(rate sim.Rate) error {
	if _, ok := NS2IntervalAt(rate); ok {
		return nil
	}
	least := new(big.Int).Add(new(big.Int).Quo(ns2Bits(), maxEpochPs()), big.NewInt(1))
	return &model.FieldError{Field: "edge-rate", Value: model.Rate(rate).String(), Allowed: fmt.Sprintf(
		"qjump-ns2's interval, 1.05 ms at 10 Gb/s, scales with 10 Gb/s over the edge rate and would be longer "+
			"than the clocks' 100 days: need at least %s", model.Rate(least.Int64()))}
}

// schemeWarnings are what a scheme's configuration on fab makes valid but probably unmeant:
// qjump's model warnings (model.Config.Warnings: an epoch over a second, a budget under a full
// frame, a factor above line rate).
func schemeWarnings(s Scheme, fab topology.Config, qj model.Config) []string {
	var w []string
	if s == QJump {
		for _, m := range qj.Warnings() {
			w = append(w, "scheme qjump: "+m)
		}
	}
	return w
}
