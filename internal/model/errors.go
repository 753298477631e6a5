package model

import "fmt"

// FieldError is bad input: it names the field as the user wrote it (a flag or config key), the
// value given and what is allowed, so that every front end can print one clear line.
type FieldError struct {
	Field   string // e.g. "hosts", "rate", "factors"
	Value   string // the value as the user gave it
	Allowed string // what would have been accepted
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("invalid %s %q: %s", e.Field, e.Value, e.Allowed)
}

func fieldError(field, value, allowed string) *FieldError {
	return &FieldError{Field: field, Value: value, Allowed: allowed}
}
