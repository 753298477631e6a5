package cli

import "testing"

func TestDownOptions(t *testing.T) {
	if got := parseOptions(t, newDownCommand, "--dev", "eth1"); got.dev != "eth1" {
		t.Errorf("--dev eth1 parsed as %+v", got)
	}
}
