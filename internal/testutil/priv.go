// Package testutil holds helpers shared by tests that need the real kernel.
package testutil

import (
	"os"
	"testing"
)

// RequireEnv is the variable CI sets so that a test which cannot get root, network namespaces or
// BPF fails instead of skipping: a green CI run must mean the kernel paths actually ran.
const RequireEnv = "QJUMP_REQUIRE_PRIV"

// RequirePriv skips t (or fails it under QJUMP_REQUIRE_PRIV=1) unless the process is root. what
// names the feature the test needs, for the skip message.
func RequirePriv(t testing.TB, what string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	Unavailable(t, what+" needs root (run the tests as root, e.g. sudo make test)")
}

// Unavailable skips t with reason, or fails it when QJUMP_REQUIRE_PRIV=1. Use it for any missing
// kernel feature or tool that the test cannot do without.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1: failing instead of skipping)", reason, RequireEnv)
	}
	t.Skip(reason)
}
