package cli

import "testing"

func TestReloadOptions(t *testing.T) {
	got := parseOptions(t, newReloadCommand, "--dev", "eth1", "--config", "/etc/q.yaml")
	if got.dev != "eth1" || got.configFile != "/etc/q.yaml" {
		t.Errorf("parsed %+v", got)
	}
}
