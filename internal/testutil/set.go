package testutil

import "testing"

// Set gives the variable at p the value v for the rest of t, and its own value back when t ends:
// for a package's seam (a hook a test replaces) or a directory it is pointed at, restored as it
// was rather than as a test would spell it again.
func Set[T any](t testing.TB, p *T, v T) {
	t.Helper()
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}
