package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/qjump-net/qjump/internal/machine"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// QjumpBinary builds cmd/qjump once per test process and returns its path. Tests that run qjump
// inside namespaces or as another user need the real binary: a test binary has none of the verbs.
// The directory is readable by everyone, for tests that run it as an unprivileged uid; Main
// removes it.
func QjumpBinary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "qjump-bin-")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			binaryErr = fmt.Errorf("make a directory for qjump: %w", err)
			return
		}
		binaryPath = filepath.Join(dir, "qjump")
		// Stamped with the commit where the Makefile stamps it, so that qjump version names it.
		vcs := "false"
		if BuildStampsCommit() {
			vcs = "auto"
		}
		out, err := exec.Command("go", "build", "-buildvcs="+vcs, "-o", binaryPath, "github.com/qjump-net/qjump/cmd/qjump").CombinedOutput()
		if err != nil {
			binaryErr = fmt.Errorf("build qjump: %v: %s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// BuildStampsCommit says whether qjump is built with its commit stamped here, as the Makefile
// chooses (its BUILDVCS, QjumpBinary too): where the module's directory is itself a git checkout
// that git reads; not in a linked worktree, a tree inside another repository (go would stamp that
// one's commit) or a checkout git refuses (another user's).
func BuildStampsCommit() bool {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return false
	}
	dir := strings.TrimSpace(string(root))
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
		return false
	}
	return exec.Command("git", "-C", dir, "status", "--porcelain").Run() == nil
}

// Main runs the tests of a package that uses QjumpBinary and removes the binary afterwards: call
// it from TestMain as os.Exit(testutil.Main(m)). It first waits for its turn among the packages
// whose tests use the kernel (takeTurn). As root it holds the CPUs awake meanwhile, as
// `qjump testbed run` does: these tests measure rates, epochs and latencies on the kernel's
// softirqs and timers, and on a VM an idle vCPU that halts can wait milliseconds for the
// hypervisor (docs/testbed.md, "Machine stalls"), a stall no server tuned for latency has.
func Main(m *testing.M) int {
	release, err := takeTurn(os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer release()
	if os.Geteuid() == 0 {
		if release, err := machine.HoldCPUsAwake(); err == nil {
			defer release()
		}
	}
	code := m.Run()
	if binaryPath != "" {
		_ = os.RemoveAll(filepath.Dir(binaryPath))
	}
	return code
}
