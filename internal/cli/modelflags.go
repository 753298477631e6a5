package cli

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// modelFlags are the model's inputs as flags, shared by every verb that needs a QJump
// configuration (calc, up, reload).
type modelFlags struct {
	cfg         model.Config
	packetAuto  bool // --packet auto: one full frame of the device
	targetRates map[model.Level]model.Rate
	// targetUnitless warns of the rates --target-rate gave without a unit, as the flag was read
	// (unitWarnings); --rate's text is in typed.
	targetUnitless []string
	// typed is each of typedFlags' values as the user typed it, for messages: a refusal quotes
	// "5=10", not the "5=10b/s" the value prints as.
	typed typedTexts
}

// typedFlags are the flags whose text modelFlags keeps.
var typedFlags = []string{"hosts", "rate", "packet", "epsilon", "mesochronous", "factors", "target-rate"}

// newModelFlags starts from config.Default()'s model, the one place that says what an input left
// out is.
func newModelFlags() *modelFlags {
	def := config.Default()
	return &modelFlags{cfg: def.Model, packetAuto: def.AutoPacket}
}

func (m *modelFlags) register(fs *pflag.FlagSet) {
	fs.Var(&unitValue[int]{&m.cfg.Hosts, parseWhole(1, "need a whole number of hosts, at least 1")}, "hosts",
		"n: hosts that may send to one destination at once, e.g. 12")
	fs.Var(&unitValue[model.Rate]{&m.cfg.Rate, config.ParseRate}, "rate",
		"R: edge link rate in bits/s (the slowest host link), e.g. 10G, 10Gb/s, 100M")
	fs.Var(&packetValue{&m.cfg.Packet, &m.packetAuto}, "packet",
		"P: wire bytes a host may send per epoch at factor 1, e.g. 1538B, 9k; auto is one full frame of the\n"+
			"device on the wire, MTU + 14 (+ 4 when PCP marking pushes a tag) + 24: 1538B for MTU 1500")
	fs.Var(&unitValue[time.Duration]{&m.cfg.Epsilon, model.ParseDuration}, "epsilon",
		"ε: what the fan-in delay leaves out, on the longest path: at each switch hop its processing delay plus one\n"+
			"largest frame's time (a lower level's frame already being sent: strict priority does not preempt it), and\n"+
			"the host link's time for one frame (docs/model.md, \"What D counts\"), e.g. 4us, 1.05ms")
	fs.Var(&unitValue[int]{&m.cfg.Mesochronous, parseWhole(1, "need a whole number, at least 1")}, "mesochronous",
		"m: epoch misalignment compensation; 2 is safe for unsynchronised hosts, 1 is the paper's nP/R")
	fs.Var(&unitValue[model.Factors]{&m.cfg.Factors, model.ParseFactors}, "factors",
		"throughput factor per level as LEVEL=FACTOR,..., level 7 highest, e.g. 7=1,5=6,0=unlimited")
	fs.Var(&unitValue[map[model.Level]model.Rate]{&m.targetRates, func(s string) (rates map[model.Level]model.Rate, err error) {
		rates, m.targetUnitless, err = parseTargetRates(s)
		return rates, err
	}}, "target-rate",
		"solve the factor for a rate as LEVEL=RATE,..., e.g. 5=5G; replaces the level's factor (the default, or\n"+
			"the --config file's, or for reload the running one), but a level also given in --factors is refused")
	m.typed.keep(fs, typedFlags...)
}

// unitWarnings says which of --rate and --target-rate's rates were given without a unit, as a
// file's rate is warned about (config.File.Warnings): both read a bare number as bits per second.
func (m *modelFlags) unitWarnings() []string {
	return append(m.typed.unitlessRate(), m.targetUnitless...)
}

// parseTargetRates reads --target-rate's LEVEL=RATE,... and, from the same reading, warns of each
// rate without a unit, by the level it was read as, lowest first as a file's target_rate is.
func parseTargetRates(s string) (map[model.Level]model.Rate, []string, error) {
	type typed struct {
		rate model.Rate
		text string
	}
	given, err := model.ParseLevelMap(s, func(v string) (typed, error) {
		r, err := model.ParseRate(v)
		return typed{r, v}, err
	})
	if err != nil {
		return nil, nil, err
	}
	rates := make(map[model.Level]model.Rate, len(given))
	var unitless []string
	for _, l := range slices.Sorted(maps.Keys(given)) {
		rates[l] = given[l].rate
		if w := model.UnitlessRate(fmt.Sprintf("--target-rate level %d", l), given[l].text); w != "" {
			unitless = append(unitless, w)
		}
	}
	return rates, unitless, nil
}

// checkTargetRates refuses a level that --target-rate solves for while --factors (factorsSet)
// also gives it a factor: which one the user meant is ambiguous.
func checkTargetRates(rates map[model.Level]model.Rate, factors model.Factors, factorsSet bool) error {
	for l := range rates {
		if _, dup := factors[l]; dup && factorsSet {
			return usageErrorf("level %d is given in both --factors and --target-rate: give it once", l)
		}
	}
	return nil
}

// asFlagError rewrites a model field error to name the flag the user typed.
func asFlagError(err error) error {
	var fe *model.FieldError
	if errors.As(err, &fe) && len(fe.Together) > 0 {
		return &UsageError{Err: fe.Rename(func(in model.Input) model.Input {
			in.Field = "--" + in.Field
			return in
		})}
	}
	if errors.As(err, &fe) {
		return usageErrorf("invalid --%s %q: %s", fe.Field, fe.Value, fe.Allowed)
	}
	return err
}

// packetValue is --packet: auto or a size in wire bytes.
type packetValue struct {
	p    *model.Bytes
	auto *bool
}

func (v *packetValue) Set(s string) error {
	p, auto, err := config.ParsePacket(s)
	if err != nil {
		return err
	}
	*v.auto = auto
	if !auto {
		*v.p = p
	}
	return nil
}

func (v *packetValue) String() string {
	switch {
	case v.auto == nil || *v.auto:
		return "auto"
	case v.p == nil || *v.p == 0:
		return "" // no default to show (reload: P stays the running one)
	}
	return v.p.String()
}

func (v *packetValue) Type() string { return "value" }

// parseWhole reads a whole number of at least min for unitValue, answering allowed otherwise:
// pflag's IntVar would pass on strconv's `parsing "12.5": invalid syntax`, which names neither.
// Spaces around it are taken, as every unit flag takes them (--rate " 10G "): --hosts " 12" was
// refused.
func parseWhole(min int, allowed string) func(string) (int, error) {
	return parseWholeIn(min, math.MaxInt, allowed)
}

// parseWholeIn is parseWhole for a number from min to max.
func parseWholeIn(min, max int, allowed string) func(string) (int, error) {
	return func(s string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < min || n > max {
			return 0, errors.New(allowed)
		}
		return n, nil
	}
}

// unitValue adapts a model parser to a pflag.Value, so a malformed unit is reported by pflag with
// the flag's name and the value given.
type unitValue[T any] struct {
	p     *T
	parse func(string) (T, error)
}

func (u *unitValue[T]) Set(s string) error {
	v, err := u.parse(s)
	if err != nil {
		return err
	}
	*u.p = v
	return nil
}

// String is the flag's value as --help shows it as the default. A value that prints as its type's
// zero value (0b/s, 0s, map[]) is no default a user can read: it shows as none.
func (u *unitValue[T]) String() string {
	var zero T
	if u.p == nil || fmt.Sprint(*u.p) == fmt.Sprint(zero) {
		return ""
	}
	return fmt.Sprint(*u.p)
}

// Type is what --help shows after the flag's name: the plain type for numbers, "value" for units.
func (u *unitValue[T]) Type() string {
	var zero T
	switch any(zero).(type) {
	case int:
		return "int"
	case float64:
		return "float"
	}
	return "value"
}
