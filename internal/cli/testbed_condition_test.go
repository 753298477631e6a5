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
// nobody called every testbed being built incomplete, its live maker killed. The same holds of a
// testbed being removed and the remains of a removal killed part-way. Root tells them apart.
func TestStatusWithoutRootCannotTellALiveTestbedFromRemains(t *testing.T) {
	bin := tbtest.RequireTools(t)
	prefix := tbtest.Prefix(t) // its cleanup removes the state and the lock file
	pid := os.Getpid()
	nobody := []string{"--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", bin, "testbed", "status", "--prefix", prefix}
	for _, c := range []struct {
		record     string
		cannotTell string    // what status says without root, alive or killed
		alive      string    // what status says with root, its maker alive
		killed     string    // what status says with root, killed
		conditions [2]string // status --json's condition with root: alive, killed
	}{
		{"building", fmt.Sprintf("warning: testbed %s is being built, or run by an experiment, by pid %d, or that qjump was killed "+
			"before it finished: run status as root to tell\n", prefix, pid),
			fmt.Sprintf("\nbeing built, or run by an experiment, by pid %d\n", pid),
			fmt.Sprintf("warning: testbed %s is incomplete: the qjump that built it (pid %d) was killed before it finished", prefix, pid),
			[2]string{"in-use", "incomplete"}},
		{"removing", fmt.Sprintf("warning: testbed %s is being removed, or the qjump that was removing it was killed part-way: "+
			"run status as root to tell\n", prefix),
			"\nbeing removed by the qjump that holds its lock\n",
			fmt.Sprintf("warning: testbed %s is half-removed: the qjump that was removing it was killed part-way, or could not delete a namespace; "+
				"remove the rest with: qjump testbed down --prefix %s", prefix, prefix), [2]string{"being-removed", "half-removed"}},
	} {
		lock, err := testbed.Acquire(prefix)
		if err != nil {
			t.Fatal(err)
		}
		s := testbed.State{Config: testConfig(prefix, 2), PID: pid, Created: time.Now().UTC()}
		s.Building, s.Removing = c.record == "building", c.record == "removing"
		writeTestbedState(t, s)
		for i, maker := range []struct{ state, root string }{{"alive", c.alive}, {"killed", c.killed}} {
			if maker.state == "killed" {
				lock.Release() // as the kernel does when its holder dies
			}
			out, errOut, code := testutil.Run(t, nil, "setpriv", nobody...)
			if code != 0 || !strings.Contains(out, c.cannotTell) || strings.Contains(out, "incomplete") || strings.Contains(out, "half-removed") {
				t.Errorf("nobody, %s, its maker %s: status exit %d, stderr %q, stdout:\n%s\nwant %q, and not that it is remains",
					c.record, maker.state, code, errOut, out, c.cannotTell)
			}
			out, errOut, code = testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix)
			if code != 0 || !strings.Contains(out, maker.root) {
				t.Errorf("root, %s, its maker %s: status exit %d, stderr %q, stdout:\n%s\nwant %q", c.record, maker.state, code, errOut, out, maker.root)
			}
			out, _, _ = testutil.Run(t, nil, bin, "testbed", "status", "--prefix", prefix, "--json")
			var st testbedStatusJSON
			if err := json.Unmarshal([]byte(out), &st); err != nil || st.Condition != c.conditions[i] {
				t.Errorf("root, %s, its maker %s: status --json condition %q (%v); want %q", c.record, maker.state, st.Condition, err, c.conditions[i])
			}
			out, _, _ = testutil.Run(t, nil, "setpriv", append(nobody, "--json")...)
			if err := json.Unmarshal([]byte(out), &st); err != nil || st.Condition != "cannot-tell" {
				t.Errorf("nobody, %s, its maker %s: status --json condition %q (%v); want cannot-tell", c.record, maker.state, st.Condition, err)
			}
		}
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

// A host whose QJump could not be read (its namespace gone: a down killed part-way) is neither on
// nor off: status's headline and warnings say it could not be read, and do not count it with the
// hosts without QJump. "QJump on 1 of 3 hosts" above one host that ran it and two that were gone
// warned that the others' traffic was neither marked nor limited.
func TestStatusLeavesUnreadableHostsOutOfOnAndOff(t *testing.T) {
	on := testbed.HostQJump{Host: 1, Up: true, Attached: true, Mode: "shape", ConfigHash: "dfeabe6ef2a489b4"}
	off := testbed.HostQJump{Host: 2}
	gone := testbed.HostQJump{Host: 3, Error: "open network namespace qjfz-h3: no such file or directory"}
	for _, c := range []struct {
		name     string
		hosts    []testbed.HostQJump
		headline string
		warnings []string
	}{
		{"all read", []testbed.HostQJump{on, off, off}, "QJump on 1 of 3 hosts", []string{"QJump runs on 1 of 3 hosts (see QJUMP)"}},
		{"on and gone", []testbed.HostQJump{on, gone, gone}, "QJump on 1, off on 0, cannot be read on 2 of 3 hosts (see QJUMP)",
			[]string{"2 of 3 hosts could not be read (see QJUMP): whether they run QJump is not known"}},
		{"on, off and gone", []testbed.HostQJump{on, off, gone}, "QJump on 1, off on 1, cannot be read on 1 of 3 hosts (see QJUMP)",
			[]string{"QJump runs on 1 of the 2 hosts that could be read (see QJUMP)", "1 of 3 hosts could not be read"}},
		{"off and gone", []testbed.HostQJump{off, off, gone}, "QJump on 0, off on 2, cannot be read on 1 of 3 hosts (see QJUMP)",
			[]string{"1 of 3 hosts could not be read"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := qjumpHeadline(testbed.State{}, c.hosts, nil); got != c.headline {
				t.Errorf("headline %q, want %q", got, c.headline)
			}
			got := hostsWarnings(c.hosts)
			if len(got) != len(c.warnings) {
				t.Fatalf("warnings %q, want %d: %q", got, len(c.warnings), c.warnings)
			}
			for i, w := range c.warnings {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("warning %q, want it to begin %q", got[i], w)
				}
			}
		})
	}
}
