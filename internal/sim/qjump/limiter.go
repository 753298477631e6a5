// Package qjump is QJump's host side in the simulator: the per-level byte budget per network
// epoch, computed with internal/model and charged exactly as the dataplane's eBPF program does
// (bpf/qjump.bpf.c: charge and rollover), and a host NIC that serves levels in strict priority
// and holds a packet until its level's budget allows it. It holds rather than drops, as shape
// mode does, but its budgets are police mode's: a fresh one each epoch of the host's clock, so a
// host can send two back to back across an epoch's end (model.Config.BurstBudgets). For
// comparison only, FlowPolicer is the per-flow limiter of the paper's own ns-2 simulation.
package qjump

import "github.com/qjump-net/qjump/internal/model"

// maxBudget mirrors QJ_USED_BITS in bpf/qjump.h: a budget of 2^40 bytes or more per epoch is no
// limit at all, as internal/dataplane encodes it.
const maxBudget = 1 << 40

// Limiter is one host's budgets. Like the dataplane it works in nanoseconds of the host's clock:
// epochs are the fixed grid [k·E, (k+1)·E) of that clock, each level counts the bytes used in its
// current epoch (reset at its first packet of a new epoch), and admits a packet of len bytes while
// used + len ≤ B_i.
type Limiter struct {
	epochNs  int64
	budget   [model.NumLevels]int64
	limited  [model.NumLevels]bool
	carrier  [model.NumLevels]uint8
	used     [model.NumLevels]int64
	epochEnd [model.NumLevels]int64
}

// NewLimiter encodes c as internal/dataplane's encode does: E = c.Epoch() in whole nanoseconds,
// B_i = c.Budget(f_i), and a level without a factor charged at its carrier
// (model.Factors.Carrier). c must be valid (c.Validate()).
func NewLimiter(c model.Config) *Limiter {
	l := &Limiter{epochNs: c.Epoch().Nanoseconds()}
	for lv := range model.NumLevels {
		carrier, _ := c.Factors.Carrier(model.Level(lv))
		l.carrier[lv] = uint8(carrier)
		if f, ok := c.Factors[model.Level(lv)]; ok {
			if b, limited := c.Budget(f); limited && b < maxBudget {
				l.budget[lv], l.limited[lv] = int64(b), true
			}
		}
	}
	return l
}

// EpochNs is E in nanoseconds.
func (l *Limiter) EpochNs() int64 { return l.epochNs }

// Carrier is the level whose budget a packet sent at level pays.
func (l *Limiter) Carrier(level int) int { return int(l.carrier[level&(model.NumLevels-1)]) }

// Charge charges len bytes to the budget of level (already a carrier) at host time nowNs and
// says whether the level had them: the dataplane's charge() and rollover() on one CPU.
func (l *Limiter) Charge(level int, length int64, nowNs int64) bool {
	if level < 0 || level >= model.NumLevels {
		return false
	}
	if !l.limited[level] {
		return true
	}
	if nowNs >= l.epochEnd[level] {
		l.used[level] = 0
		l.epochEnd[level] = (nowNs/l.epochNs + 1) * l.epochNs
	}
	if l.used[level]+length > l.budget[level] {
		return false
	}
	l.used[level] += length
	return true
}

// NextEpochNs is when the epoch after the one holding nowNs begins: when a refused level may
// try again.
func (l *Limiter) NextEpochNs(nowNs int64) int64 {
	return (nowNs/l.epochNs + 1) * l.epochNs
}
