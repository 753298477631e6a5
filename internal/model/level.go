package model

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Level is a QJump level: 0 is the lowest priority (bulk), 7 the highest (guaranteed latency).
type Level int

const (
	// NumLevels is the number of QJump levels, one per 802.1Q priority.
	NumLevels = 8
	// TopLevel is the guaranteed-latency level.
	TopLevel Level = NumLevels - 1
)

const levelAllowed = "need a level from 0 (lowest) to 7 (highest)"

// ParseLevel reads a level number 0..7.
func ParseLevel(s string) (Level, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 0 || v >= NumLevels {
		return 0, fmt.Errorf("%s", levelAllowed)
	}
	return Level(v), nil
}

// Factor is a level's throughput factor: the level may send Value·P bytes per epoch. An unlimited
// factor has no budget; the zero Factor is neither and is rejected by Validate.
type Factor struct {
	Value     float64
	Unlimited bool
}

// Limited returns the factor f.
func Limited(f float64) Factor { return Factor{Value: f} }

// Unlimited returns the factor of a level with no budget.
func Unlimited() Factor { return Factor{Unlimited: true} }

func (f Factor) String() string {
	if f.Unlimited {
		return "unlimited"
	}
	return strconv.FormatFloat(f.Value, 'g', -1, 64)
}

// Factors maps the configured levels to their factors. A level that is absent carries no traffic
// in the model; it is not the same as an unlimited level.
type Factors map[Level]Factor

// Levels returns the configured levels from highest to lowest, the order in which a switch serves
// them and in which tables print them.
func (fs Factors) Levels() []Level {
	levels := make([]Level, 0, len(fs))
	for l := range fs {
		levels = append(levels, l)
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i] > levels[j] })
	return levels
}

// String prints factors the way ParseFactors reads them: "7=1,5=6,0=unlimited".
func (fs Factors) String() string {
	parts := make([]string, 0, len(fs))
	for _, l := range fs.Levels() {
		parts = append(parts, fmt.Sprintf("%d=%s", l, fs[l]))
	}
	return strings.Join(parts, ",")
}

// ParseLevelMap reads "L=V,L=V" into a map, reading each value with parse. It is shared by
// --factors (V a factor) and --target-rate (V a rate).
func ParseLevelMap[V any](s string, parse func(string) (V, error)) (map[Level]V, error) {
	out := map[Level]V{}
	for _, item := range strings.Split(s, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("%q is not LEVEL=VALUE", item)
		}
		l, err := ParseLevel(key)
		if err != nil {
			return nil, fmt.Errorf("level %q: %w", key, err)
		}
		if _, dup := out[l]; dup {
			return nil, fmt.Errorf("level %d is given twice", l)
		}
		v, err := parse(value)
		if err != nil {
			return nil, fmt.Errorf("level %d value %q: %w", l, value, err)
		}
		out[l] = v
	}
	return out, nil
}

// ParseFactors reads "7=1,5=6,0=unlimited".
func ParseFactors(s string) (Factors, error) {
	m, err := ParseLevelMap(s, ParseFactor)
	return Factors(m), err
}

// Carrier is the configured level that carries traffic sent at l: l itself if it is configured,
// else the nearest configured level below it (a level never gains priority by being left out),
// else the lowest configured level. ok is false only when no level is configured. This keeps
// the model's promise that an unconfigured level carries no traffic of its own.
func (fs Factors) Carrier(l Level) (carrier Level, ok bool) {
	if _, ok := fs[l]; ok {
		return l, true
	}
	levels := fs.Levels() // highest first
	if len(levels) == 0 {
		return 0, false
	}
	for _, c := range levels {
		if c < l {
			return c, true
		}
	}
	return levels[len(levels)-1], true
}
