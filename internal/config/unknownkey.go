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
var unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)

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
	prefix, hint := "", ""
	for _, k := range structs {
		if reflect.TypeOf(k.Struct).String() == m[3] {
			prefix = k.Prefix
			hint = suggest.DidYouMean(suggest.Closest(m[2], yamlKeys(k.Struct)), prefix)
		}
	}
	return &model.FieldError{Field: "key", Value: prefix + m[2],
		Allowed: fmt.Sprintf("no such key at line %s%s (docs/configuration.md lists the keys)", m[1], hint)}
}

// yamlKeys are the keys of struct v's yaml tags.
func yamlKeys(v any) []string {
	t := reflect.TypeOf(v)
	var keys []string
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if key != "" && key != "-" {
			keys = append(keys, key)
		}
	}
	return keys
}
