package testutil

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Run runs name with args and env added to the test's environment, and returns what it printed
// and its exit status. A command that exits non-zero is a result to check, not a failure; one
// that cannot be started at all fails t.
func Run(t testing.TB, env []string, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s %s: %v", name, strings.Join(args, " "), err)
	}
	return o.String(), e.String(), code
}
