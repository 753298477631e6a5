package cli

import "testing"

// Bad input is refused before anything is loaded or any namespace is made, so these need no root.
// An unknown subcommand of a group command (bench, testbed) is bad input too.
func TestBenchDataplaneBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		says []string
	}{
		{[]string{"bench", "dataplane", "--rounds", "0"}, []string{"--rounds", "0", "at least 1"}},
		{[]string{"bench", "dataplane", "--packets", "0"}, []string{"--packets", "0", "at least 1"}},
		{[]string{"bench", "dataplane", "--seconds", "-1"}, []string{"--seconds", "-1", "at least 1"}},
		{[]string{"bench", "dataplane", "--rounds", "many"}, []string{"--rounds", "many"}},
		{[]string{"bench", "nothing"}, []string{"nothing"}},
		{[]string{"testbed", "nothing"}, []string{"nothing"}},
	} {
		wantUsageError(t, c.args, c.says...)
	}
}

func TestBenchDataplaneOptions(t *testing.T) {
	got := parseOptions(t, newBenchDataplaneCommand)
	if got.packets != 20000 || got.rounds != 5 || got.seconds != 2 || got.skipThroughput || got.json {
		t.Errorf("defaults parsed as %+v", got)
	}
	got = parseOptions(t, newBenchDataplaneCommand, "--packets", "10", "--rounds", "3", "--seconds", "1", "--skip-throughput", "--json")
	if got.packets != 10 || got.rounds != 3 || got.seconds != 1 || !got.skipThroughput || !got.json {
		t.Errorf("parsed %+v", got)
	}
}
