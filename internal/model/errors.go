package model

import (
	"fmt"
	"strings"
)

// FieldError is bad input: it names the field as the user wrote it (a flag or config key), the
// value given and what is allowed, so that every front end can print one clear line.
type FieldError struct {
	Field   string // e.g. "hosts", "rate", "factors"
	Value   string // the value as the user gave it
	Allowed string // what would have been accepted
	// Together lists every input of a refusal that no one of them makes: values each in range
	// that do not work together (n, m, P and R, whose epoch would be too long). Field and Value
	// are its first; Allowed says which way to move each. Empty for a value wrong on its own.
	Together []Input
}

// Input is one of the values a FieldError names.
type Input struct {
	Field string
	Value string
	// From says where the value came from when the field's name does not ("the default"), for a
	// value the user did not give; it is printed after the value in parentheses.
	From string
}

func (in Input) String() string {
	s := fmt.Sprintf("%s %q", in.Field, in.Value)
	if in.From != "" {
		s += " (" + in.From + ")"
	}
	return s
}

func (e *FieldError) Error() string {
	if len(e.Together) == 0 {
		return fmt.Sprintf("invalid %s %q: %s", e.Field, e.Value, e.Allowed)
	}
	names := make([]string, len(e.Together))
	for i, in := range e.Together {
		names[i] = in.String()
	}
	return fmt.Sprintf("invalid %s together: %s", JoinAnd(names), e.Allowed)
}

// Inputs is every value e names: Together, or Field and Value alone.
func (e *FieldError) Inputs() []Input {
	if len(e.Together) == 0 {
		return []Input{{Field: e.Field, Value: e.Value}}
	}
	return append([]Input(nil), e.Together...)
}

// Rename returns a copy of e whose inputs are each rewritten by name: a front end's name of a
// field (--hosts, target_rate[5]), the value as its user wrote it, and where it came from. e is
// not changed.
func (e *FieldError) Rename(name func(Input) Input) *FieldError {
	out := *e
	ins := e.Inputs()
	for i, in := range ins {
		ins[i] = name(in)
	}
	out.Field, out.Value = ins[0].Field, ins[0].Value
	out.Together = nil
	if len(e.Together) > 0 {
		out.Together = ins
	}
	return &out
}

func fieldError(field, value, allowed string) *FieldError {
	return &FieldError{Field: field, Value: value, Allowed: allowed}
}

// fieldsError is a FieldError of values that do not work together.
func fieldsError(allowed string, inputs ...Input) *FieldError {
	return &FieldError{Field: inputs[0].Field, Value: inputs[0].Value, Allowed: allowed, Together: inputs}
}

// JoinAnd joins "a", "b" and "c" as "a, b and c": messages' lists, here and in the simulator's.
func JoinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
