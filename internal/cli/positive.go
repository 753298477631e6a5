package cli

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// aboveZero makes parse, a flag's reader for unitValue, refuse 0 and below (and what is not a
// finite number) as well as what it cannot read, each answered with allowed: parse's own answer
// may allow 0 (model.ParseDuration's "need 0 or more"). It is for a target such as advise's
// --p99, where 0 would be no target to the code that reads the value: refused as the flag's
// value, it is named as the user typed it, at parse time.
func aboveZero[T ~int64 | ~float64](parse func(string) (T, error), allowed string) func(string) (T, error) {
	return func(s string) (T, error) {
		v, err := parse(s)
		if f := float64(v); err != nil || !(f > 0) || math.IsInf(f, 0) {
			return 0, errors.New(allowed)
		}
		return v, nil
	}
}

// positiveDuration reads a duration above 0 with a unit, in model.ParseDuration's syntax.
func positiveDuration(allowed string) func(string) (time.Duration, error) {
	return aboveZero(model.ParseDuration, allowed)
}

// positiveNumber reads a number above 0, such as a rate in requests per second.
func positiveNumber(allowed string) func(string) (float64, error) {
	return aboveZero(func(s string) (float64, error) { return strconv.ParseFloat(strings.TrimSpace(s), 64) }, allowed)
}
