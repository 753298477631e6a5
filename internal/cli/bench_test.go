package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/dataplane"
)

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

// TestBenchDataplaneSaysWhyTheCeilingRowIsMissing: where no cgroup ceiling can be set (under ip
// netns exec, which hides the cgroup hierarchy), the row --help promises was left out without a
// word; the text says why, and --json has the reason beside the null.
func TestBenchDataplaneSaysWhyTheCeilingRowIsMissing(t *testing.T) {
	why := "no cgroup ceiling can be set for this process's cgroup: no cgroup v2 hierarchy"
	out := benchDataplaneJSON{Program: dataplane.ProgramCost{EmptyNs: 70, ClockNs: 110, QJumpNs: 140, CeilingSkipped: why}}
	var text strings.Builder
	if err := printBenchDataplane(&text, out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "no row for qjump with a cgroup ceiling set: "+why) {
		t.Errorf("text output does not say why the ceiling row is missing:\n%s", text.String())
	}
	var js strings.Builder
	if err := printJSON(&js, out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"qjump_ceiling_ns": null`) || !strings.Contains(js.String(), `"qjump_ceiling_skipped": "`+why) {
		t.Errorf("--json does not say why qjump_ceiling_ns is null:\n%s", js.String())
	}
	ceiling := 190.0
	out.Program.CeilingNs, out.Program.CeilingSkipped = &ceiling, ""
	text.Reset()
	if err := printBenchDataplane(&text, out); err != nil {
		t.Fatal(err)
	}
	if s := text.String(); !regexp.MustCompile(`a cgroup ceiling set +190\n`).MatchString(s) || strings.Contains(s, "no row") {
		t.Errorf("with the ceiling measured:\n%s", s)
	}
}
