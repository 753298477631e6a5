package apputil

import (
	"fmt"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// MappingWarnings says where the dataplane in this network namespace would not count priority l
// as level l. run and assign set SO_PRIORITY = level, which relies on the dataplane's
// priority->level table being the identity for that priority and on level l having a factor; a
// custom priority_levels table, a default level other than 0 for priority 0, or a level left out
// of the factors (its traffic goes to its carrier) breaks it. With a ceiling (--max-level, nil
// for none), a level whose carrier is above the ceiling sends nothing: the dataplane drops every
// packet as "no level". active is what dataplane.ActiveConfigs read.
func MappingWarnings(active []dataplane.DeviceConfig, l model.Level, ceiling *model.Level) []string {
	var warnings []string
	for _, st := range active {
		if ceiling != nil {
			if got, ok := st.Config.LevelUnder(int(l), *ceiling); !ok {
				warnings = append(warnings, fmt.Sprintf("the dataplane on %s has no level at or below --max-level %d "+
					"to carry level %d (its carrier there is level %d): it will drop every packet of the program as no level",
					st.Device, *ceiling, l, got))
				continue
			}
		}
		if got := st.Config.LevelOf(int(l)); got != l {
			warnings = append(warnings, fmt.Sprintf("the dataplane on %s counts priority %d as level %d, not %d "+
				"(its priority_levels, default_level, or no factor for level %d): the program's traffic goes out at level %d",
				st.Device, l, got, l, l, got))
		}
	}
	return warnings
}
