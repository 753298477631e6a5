package testutil

import "strings"

// ParseValues reads the "name value" lines the test probes print, one per line, into a map.
func ParseValues(out string) map[string]string {
	values := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, value, _ := strings.Cut(line, " ")
		values[name] = value
	}
	return values
}
