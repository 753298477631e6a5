package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/machine"
)

// StallMonitor starts `qjump testbed stalls` (a process of its own: a monitor in the test's
// process would see the test's busy goroutines as stalls) and returns the function that stops it
// and gives the stalls it measured. The monitor also ends with the test process.
func StallMonitor(t testing.TB) (stop func() []machine.Stall) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "stalls.csv")
	cmd := exec.Command(QjumpBinary(t), "testbed", "stalls", "--out", out, "--for", "10m")
	stdin, err := cmd.StdinPipe()
	if err == nil {
		cmd.Stderr = os.Stderr
		err = cmd.Start()
	}
	if err != nil {
		t.Fatalf("start the stall monitor: %v", err)
	}
	time.Sleep(100 * time.Millisecond) // its threads are up well within this
	return func() []machine.Stall {
		t.Helper()
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("stall monitor: %v", err)
		}
		stalls, err := machine.ReadCSV(out)
		if err != nil {
			t.Fatalf("stall monitor: %v", err)
		}
		return stalls
	}
}
