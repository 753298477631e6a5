package cli

import "testing"

func TestStatusOptions(t *testing.T) {
	if got := parseOptions(t, newStatusCommand); got.dev != "" || got.json {
		t.Errorf("no flags parsed as %+v, want every device as tables", got)
	}
	if got := parseOptions(t, newStatusCommand, "--dev", "eth1", "--json"); got.dev != "eth1" || !got.json {
		t.Errorf("--dev eth1 --json parsed as %+v", got)
	}
}
