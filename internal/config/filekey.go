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
// per-level value `factors "7=2"` becomes `factors[7] "2"`. Any other error is returned as it is.
func FileKey(err error) error {
	var fe *model.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	out := *fe
	if key, ok := keyOfFlag[out.Field]; ok {
		out.Field = key
	}
	if out.Field == "factors" || out.Field == "target_rate" {
		if l, v, ok := LevelValue(fe); ok {
			out.Field, out.Value = fmt.Sprintf("%s[%d]", out.Field, l), v
		}
	}
	return &out
}

// LevelValue splits the value of a per-level field error, "L=V" as validation writes a factor or
// a target rate, into the level and the value; ok is false for any other value.
func LevelValue(fe *model.FieldError) (l model.Level, value string, ok bool) {
	before, value, ok := strings.Cut(fe.Value, "=")
	n, err := strconv.Atoi(before)
	if !ok || err != nil {
		return 0, "", false
	}
	return model.Level(n), value, true
}
