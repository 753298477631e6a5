package testbed

import "testing"

// The command that removes a testbed names its prefix unless it is the default.
func TestDownCommandNamesThePrefix(t *testing.T) {
	if got := DownCommand(DefaultPrefix); got != "qjump testbed down" {
		t.Errorf("DownCommand(%q) = %q", DefaultPrefix, got)
	}
	if got := DownCommand("rva"); got != "qjump testbed down --prefix rva" {
		t.Errorf("DownCommand(rva) = %q", got)
	}
}
