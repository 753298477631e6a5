package cli

import (
	"errors"
	"math/big"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
)

// simDelayValue is a flag holding a fabric delay in the simulator's own time, whole picoseconds.
// The flags were time.Durations once, whole nanoseconds, and Go's parser drops what is finer:
// --link-delay 0.5ns simulated and recorded 0, and 1.5ns was 1ns, without a word. A delay here is
// read exactly or refused.
type simDelayValue struct{ p *sim.Time }

func (v simDelayValue) Set(s string) error {
	t, err := parseSimDelay(s)
	if err != nil {
		return err
	}
	*v.p = t
	return nil
}

// String is the default --help shows: none for 0, as unitValue shows none.
func (v simDelayValue) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return formatSimTime(*v.p)
}

func (v simDelayValue) Type() string { return "value" }

// maxFabricDelay bounds --link-delay and --host-delay: far beyond any fabric's, and far from the
// picosecond clock's limit (106 days), which a delay of thousands of hours wrapped around.
const maxFabricDelay = sim.Second

const simDelayAllowed = "need a delay with a unit, e.g. 0, 500ps, 0.5ns, 200ns, 2.5us, 2.5µs"

// parseSimDelay reads a delay as Go's time.ParseDuration does, and ps, into whole picoseconds. It
// sums in exact fractions, so 0.5ns is 500 ps and no size wraps around; a delay between whole
// picoseconds is refused, as the clock cannot hold it, rather than rounded.
func parseSimDelay(s string) (sim.Time, error) {
	rest := strings.TrimSpace(s)
	if rest == "0" || rest == "+0" || rest == "-0" {
		return 0, nil
	}
	rest = strings.TrimPrefix(rest, "+")
	negative := strings.HasPrefix(rest, "-")
	rest = strings.TrimPrefix(rest, "-")
	total, ok := model.DurationPicoseconds(rest)
	if !ok {
		return 0, errors.New(simDelayAllowed)
	}
	switch {
	case negative && total.Sign() != 0:
		return 0, errors.New("need 0 or more, not a negative delay, e.g. 0, 500ps, 200ns")
	case total.Cmp(big.NewRat(int64(maxFabricDelay), 1)) > 0:
		return 0, errors.New("need a delay from 0 to " + formatSimTime(maxFabricDelay))
	case !total.IsInt():
		return 0, errors.New("need a whole number of picoseconds, the simulator's clock counts no finer, e.g. 1ps, 0.5ns")
	}
	return sim.Time(total.Num().Int64()), nil
}

// formatSimTime prints t in the largest unit under it, as time.Duration prints: "500ps",
// "200ns", "2.5µs", "1s". parseSimDelay reads it back exactly.
func formatSimTime(t sim.Time) string {
	unit, name := sim.Picosecond, "ps"
	for _, u := range []struct {
		t    sim.Time
		name string
	}{{sim.Nanosecond, "ns"}, {sim.Microsecond, "µs"}, {sim.Millisecond, "ms"}, {sim.Second, "s"}} {
		if t >= u.t {
			unit, name = u.t, u.name
		}
	}
	return strconv.FormatFloat(float64(t)/float64(unit), 'f', -1, 64) + name
}
