package agent

import (
	"strings"
	"testing"
)

// The agent logs what `qjump calc --config` warns about its file: a rate without a unit, read as
// bits per second (`rate: 25` meant 25G), and the model's warnings, here the epoch of half an hour
// that 25 b/s gives. It applied such a file without a word.
func TestAgentLogsWhatCalcWarns(t *testing.T) {
	const file = "hosts: 2\nrate: 25\nagent:\n  interfaces: [\"qjtest-none*\"]\n"
	_, _, log, err := loggedAgent(t, "", file, Options{CgroupRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`rate \"25\" has no unit: read as 25b/s`, "network epoch 1969s is over 1s"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the agent's log does not say %q:\n%s", want, log.String())
		}
	}
	// With the unit there is nothing to say about it.
	spec, err := Parse("c.yaml", []byte("hosts: 2\nrate: 25G\nagent: {interfaces: [eth0]}\n"))
	if err != nil || len(spec.Warnings) != 0 {
		t.Errorf("rate: 25G: warnings %q, %v; want none", spec.Warnings, err)
	}
}
