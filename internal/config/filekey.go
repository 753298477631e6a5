package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/model"
)

// keyOfFlag is the file's key for each field whose flag is spelled differently.
var keyOfFlag = map[string]string{
	"target-rate":   "target_rate",
	"vlan-id":       "vlan_id",
	"default-level": "default_level",
}

// FileKey rewrites a *model.FieldError that names a field the way the flags do (validation
// shares one vocabulary with the flags) to name it the way a configuration file does, so that
// a value the file gave is named as it is written there: `vlan-id` becomes `vlan_id`, and a
// per-level value `factors "7=2"` becomes `factors[7] "2"`; every field of one that names several
// (model.FieldError.Together). Any other error is returned as it is.
func FileKey(err error) error {
	var fe *model.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	return fe.Rename(KeyOf)
}

// KeyOf names one field of a *model.FieldError the way a configuration file does (FileKey).
func KeyOf(in model.Input) model.Input {
	if key, ok := keyOfFlag[in.Field]; ok {
		in.Field = key
	}
	if in.Field == "factors" || in.Field == "target_rate" {
		if l, v, ok := levelValue(in.Value); ok {
			in.Field, in.Value = fmt.Sprintf("%s[%d]", in.Field, l), v
		}
	}
	return in
}

// LevelValue splits the value of a per-level field error, "L=V" as validation writes a factor or
// a target rate, into the level and the value; ok is false for any other value.
func LevelValue(fe *model.FieldError) (l model.Level, value string, ok bool) {
	return levelValue(fe.Value)
}

func levelValue(s string) (l model.Level, value string, ok bool) {
	before, value, ok := strings.Cut(s, "=")
	n, err := strconv.Atoi(before)
	if !ok || err != nil {
		return 0, "", false
	}
	return model.Level(n), value, true
}
