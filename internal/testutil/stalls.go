package testutil

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/machine"
)

// StallMonitor starts the stall monitor (machine.StartProcess: a monitor in the test's process
// would see the test's busy goroutines as stalls) and returns the function that stops it and
// gives the stalls it measured. The monitor also ends with the test process.
func StallMonitor(t testing.TB) (stop func() []machine.Stall) {
	t.Helper()
	p, err := machine.StartProcess(QjumpBinary(t), filepath.Join(t.TempDir(), "stalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // its threads are up well within this
	return func() []machine.Stall {
		t.Helper()
		stalls, err := p.Stop()
		if err != nil {
			t.Fatal(err)
		}
		return stalls
	}
}
