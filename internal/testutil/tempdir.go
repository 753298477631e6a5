package testutil

import (
	"os"
	"testing"
)

// SharedTempDir is a temporary directory that other users can read and enter, for tests that run
// a program as an unprivileged uid (t.TempDir's parent is private to the test's user). It is
// removed when t ends.
func SharedTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "qjump-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
