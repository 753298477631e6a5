package testutil

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, failing t after timeout with what it waited for: tests wait
// for the event they need (a server listening, a counter moving) instead of sleeping for a guess.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
