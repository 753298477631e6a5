package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/suggest"
)

// unknownField is strict YAML decoding's error for a key it does not know, in a struct of a type.
// The key is yaml's as written, spaces and all: a line that is not a key (`this is { not: yaml`) is
// one YAML reads as the key "this is { not", and it used to slip through as the raw message.
var unknownField = regexp.MustCompile(`line (\d+): field (.+?) not found in type (\S+)`)

// yamlSyntax is a YAML parser's error, with the line where yaml found the problem when it knows it.
var yamlSyntax = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// SyntaxError turns a YAML parser's error into one naming the line and the problem, without
// yaml's own prefix; the caller names the file. nil when err is about something else (a value
// of the wrong type: yaml's "unmarshal errors").
func SyntaxError(err error) *model.FieldError {
	m := yamlSyntax.FindStringSubmatch(err.Error())
	if m == nil || strings.HasPrefix(m[2], "unmarshal errors") || strings.Contains(m[2], "\n") {
		return nil
	}
	where := "a syntax error"
	if m[1] != "" {
		// yaml names the line where the construct it could not finish began, for some errors.
		where += " at or just after line " + m[1]
	}
	return &model.FieldError{Field: "YAML", Value: m[2],
		Allowed: where + ": need a YAML mapping of the keys in docs/configuration.md"}
}

// Keys is a struct with yaml tags that a file decodes into, and where it sits in the file
// ("agent.", "agent.cgroups[]."; "" at the top).
type Keys struct {
	Prefix string
	Struct any
}

// UnknownKey turns strict decoding's error for a key that the file's structs do not have into one
// naming the key, its line and the nearest keys, without the Go type that yaml names; the caller
// names the file. nil when err is about something else.
func UnknownKey(err error, structs ...Keys) *model.FieldError {
	m := unknownField.FindStringSubmatch(err.Error())
	if m == nil {
		return nil
	}
	for _, k := range structs {
		if reflect.TypeOf(k.Struct).String() == m[3] {
			return UnknownKeyAt(m[2], m[1], k)
		}
	}
	return UnknownKeyAt(m[2], m[1], Keys{})
}

// UnknownKeyAt is the refusal of key, at line, in the struct of k (none: no keys to suggest): what
// UnknownKey says, for a caller that walks the file's nodes itself.
func UnknownKeyAt(key, line string, k Keys) *model.FieldError {
	hint := ""
	if k.Struct != nil {
		hint = suggest.DidYouMean(suggest.Closest(key, yamlKeys(k.Struct)), k.Prefix)
	}
	return &model.FieldError{Field: "key", Value: k.Prefix + key,
		Allowed: fmt.Sprintf("no such key at line %s%s (docs/configuration.md lists the keys)", line, hint)}
}

// yamlKeys are the keys of struct v's yaml tags.
func yamlKeys(v any) []string { return YAMLKeys(reflect.TypeOf(v)) }

// YAMLKeys are the keys of struct type t's yaml tags, in the order of its fields.
func YAMLKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if key != "" && key != "-" {
			keys = append(keys, key)
		}
	}
	return keys
}
