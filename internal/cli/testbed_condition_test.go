package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testbed/tbtest"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestStatusWithoutRootCannotTellALiveTestbedFromRemains: status, which anyone may run, cannot
// probe the lock without root (the lock file is root's alone), so it cannot tell a testbed being
// built (or run by an experiment) from the remains of a maker that was killed: it says so, never
// that the maker was killed. A lock it could not open was taken for a free one, and status as
// nobody called every testbed being built incomplete, its live maker killed. Root tells the two
// apart.
func TestStatusWithoutRootCannotTellALiveTestbedFromRemains(t *testing.T) {
	bin := tbtest.RequireTools(t)
	prefix := tbtest.Prefix(t) // its cleanup removes the state and the lock file
	lock, err := testbed.Acquire(prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	pid := os.Getpid()
	writeTestbedState(t, testbed.State{Config: testConfig(prefix, 2), PID: pid, Created: time.Now().UTC(), Building: true})
	nobody := []string{"--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", bin, "testbed", "status", "--prefix", prefix}
	cannotTell := fmt.Sprintf("warning: testbed %s is being built, or run by an experiment, by pid %d, or that qjump was killed "+
		"before it finished: run status as root to tell\n", prefix, pid)
	killed := fmt.Sprintf("warning: testbed %s is incomplete: the qjump that built it (pid %d) was killed before it finished", prefix, pid)

	for _, maker := range []string{"alive", "killed"} {
		if maker == "killed" {
			lock.Release() // as the kernel does when its holder dies
		}
		out, errOut, code := testutil.Run(t, nil, "setpriv", nobody...)
		if code != 0 || !strings.Contains(out, cannotTell) || strings.Contains(out, "incomplete") {
			t.Errorf("nobody, maker %s: status exit %d, stderr %q, stdout:\n%s\nwant %q, and not that it is incomplete",
				maker, code, errOut, out, cannotTell)
		}
	}
	out, errOut, code := testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix)
	if code != 0 || !strings.Contains(out, killed) {
		t.Errorf("root, maker killed: status exit %d, stderr %q, stdout:\n%s\nwant %q", code, errOut, out, killed)
	}
}

// TestStatusBesideAFinishingMakerNeverSaysKilled: a status that reads the record while its maker
// builds, and probes the lock once the maker has finished and let it go, does not call the
// testbed incomplete. Status read the record (building), then every host (slowly), then the lock
// (free): a stale record and a free lock looked like a maker that was killed.
func TestStatusBesideAFinishingMakerNeverSaysKilled(t *testing.T) {
	testutil.Set(t, &testbed.RunDir, t.TempDir())
	const prefix = "qjfz"
	finished := testbed.State{Config: testConfig(prefix, testbed.MaxHosts), PID: os.Getpid(), Created: time.Now().UTC()}
	building := finished
	building.Building = true
	writeTestbedState(t, finished)

	stop, done := make(chan struct{}), make(chan struct{})
	go func() { // a maker that builds and finishes, again and again, writing its record holding the lock
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			lock, err := testbed.Acquire(prefix)
			if errors.Is(err, testbed.ErrBusy) {
				continue // status probing it
			}
			if err != nil {
				t.Error(err)
				return
			}
			writeTestbedState(t, building)
			time.Sleep(100 * time.Microsecond)
			writeTestbedState(t, finished)
			lock.Release()
		}
	}()
	defer func() { close(stop); <-done }()
	for i := 0; i < 500; i++ {
		var out bytes.Buffer
		if err := printTestbedStatus(&out, prefix); err != nil || strings.Contains(out.String(), "incomplete") {
			first, _, _ := strings.Cut(out.String(), "\nHOST")
			t.Fatalf("status %d beside a maker that finishes: %v\n%s\nwant no word of remains", i, err, first)
		}
	}
}

// testConfig is the default testbed of n hosts under prefix.
func testConfig(prefix string, n int) testbed.Config {
	c := testbed.DefaultConfig(n)
	c.Prefix = prefix
	return c
}

// writeTestbedState writes s as testbed up records a testbed, in testbed.RunDir: whole, by rename,
// as up writes it, so that a reader never sees half of it.
func writeTestbedState(t *testing.T, s testbed.State) {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Error(err)
		return
	}
	path := filepath.Join(testbed.RunDir, s.Config.Prefix+".json")
	if err := os.WriteFile(path+".test", b, 0o644); err != nil {
		t.Error(err)
		return
	}
	if err := os.Rename(path+".test", path); err != nil {
		t.Error(err)
	}
}
