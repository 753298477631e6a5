package apputil

import (
	"fmt"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// MappingWarnings says where the dataplane in this network namespace would not count priority l
// as level l. run and assign set SO_PRIORITY = level, which relies on the dataplane's
// priority->level table being the identity for that priority; a custom priority_levels table, or
// a default level other than 0 for priority 0, breaks it. Devices that cannot be read (no
// dataplane, no privilege) give no warning.
func MappingWarnings(l model.Level) []string {
	all, err := dataplane.List()
	if err != nil {
		return nil
	}
	var warnings []string
	for _, st := range all {
		if got := levelOf(st.Config, int(l)); got != l {
			warnings = append(warnings, fmt.Sprintf("the dataplane on %s counts priority %d as level %d, not %d "+
				"(its priority_levels or default_level): the program's traffic goes out at level %d", st.Device, l, got, l, got))
		}
	}
	return warnings
}

// levelOf is the level the dataplane configured as d gives a packet of socket priority p, before
// any cgroup ceiling.
func levelOf(d config.Dataplane, p int) model.Level {
	if p < 0 || p >= config.Priorities || d.PriorityLevels[p] == config.Unclassified {
		return d.DefaultLevel
	}
	return model.Level(d.PriorityLevels[p])
}
