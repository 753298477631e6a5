package model

import "fmt"

// CheckCeiling refuses a cgroup's ceiling max below its level: the dataplane would send every
// packet of the level below it, so the level the cgroup was given could never be used.
// levelKey names the level as its caller's input does (--level, agent.cgroups[0].level,
// qjump.io/level), for one message wherever a ceiling is given: `qjump assign`, the agent's
// file and a pod's annotations.
func CheckCeiling(levelKey string, level, max Level) error {
	if max < level {
		return fmt.Errorf("below %s %d, so the level could never be used", levelKey, level)
	}
	return nil
}
