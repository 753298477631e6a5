package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// typedTexts is some flags' values as the user typed them, by flag name, for what is said once
// every flag is read: a refusal of values together (--hosts with --rate), or of one against a
// bound another flag sets (advise's --throughput at the --rate's R), and the warning of a --rate
// without a unit (unitlessRate). It quotes "5=10" and "1e300", not the "5=10b/s" and "1e+300"
// the values print as. A value refused by a bound known as the flag parses is refused there
// instead, and pflag quotes it as typed (testbedFlags.parseRate, aboveZero).
type typedTexts map[string]string

// keep makes each of the flags names of fs keep its text in t as it is set.
func (t *typedTexts) keep(fs *pflag.FlagSet, names ...string) {
	if *t == nil {
		*t = typedTexts{}
	}
	for _, name := range names {
		f := fs.Lookup(name)
		f.Value = &typedValue{f.Value, name, *t}
	}
}

// typedValue is a flag's value that keeps the text the user gave it (typedTexts).
type typedValue struct {
	pflag.Value
	name  string
	texts typedTexts
}

func (v *typedValue) Set(s string) error {
	if err := v.Value.Set(s); err != nil {
		return err
	}
	v.texts[v.name] = s
	return nil
}

// input is in, an input a refusal names in the flags' spelling, with its value as the user
// typed the flag: for --factors and --target-rate, the level's own text ("5=10").
func (t typedTexts) input(in model.Input) model.Input {
	text, ok := t[in.Field]
	if !ok {
		return in
	}
	if in.Field != "factors" && in.Field != "target-rate" {
		in.Value = strings.TrimSpace(text)
		return in
	}
	l, _, ok := config.LevelValue(&model.FieldError{Value: in.Value})
	levels, err := model.ParseLevelMap(text, func(v string) (string, error) { return strings.TrimSpace(v), nil })
	if v, given := levels[l]; ok && err == nil && given {
		in.Value = fmt.Sprintf("%d=%s", l, v)
	}
	return in
}

// unitlessRate is the warning of a --rate typed without a unit (model.UnitlessRate), if any:
// one wording for the model's --rate and the testbed's.
func (t typedTexts) unitlessRate() []string { return t.unitlessRates("rate") }

// unitlessRates are the warnings of the rate flags named (without their dashes) that were typed
// without a unit, in the order named: the same wording for sim's --edge-rate and --core-rate.
func (t typedTexts) unitlessRates(names ...string) []string {
	var ws []string
	for _, name := range names {
		if w := model.UnitlessRate("--"+name, t[name]); w != "" {
			ws = append(ws, w)
		}
	}
	return ws
}

// rateOutside is the refusal of a rate r, typed as s, outside what allowed says. A number typed
// without a unit is bits per second, which is rarely what was meant when it is refused: the
// refusal says so, with s and the prefix that was most likely meant (--rate 10: 10M; sim's
// --edge-rate 10: 10G).
func rateOutside(allowed, s string, r model.Rate, prefix string) error {
	if model.UnitlessRate("", s) == "" {
		return errors.New(allowed)
	}
	n := strings.TrimSpace(s)
	return fmt.Errorf("%s; a number without a unit is bits per second (%s), e.g. %s%s for %s %sb/s", allowed, r, n, prefix, n, prefix)
}

// flagError is asFlagError with each value err refuses as the user typed it.
func (t typedTexts) flagError(err error) error {
	var fe *model.FieldError
	if errors.As(err, &fe) {
		err = fe.Rename(t.input)
	}
	return asFlagError(err)
}
