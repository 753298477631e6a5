package testbed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// A testbed left under another prefix (a --prefix run, a killed test) is named where the user
// looks for one: the message that says none is up under theirs.
func TestNotUpNamesTestbedsUnderOtherPrefixes(t *testing.T) {
	dir := tempRunDir(t)
	tempNetnsDir(t)

	_, err := ReadState("qjtb")
	if err == nil || strings.Contains(err.Error(), "prefix qjt") || strings.Contains(err.Error(), "other prefixes") {
		t.Fatalf("no testbed at all: %v, want not up and nothing else named", err)
	}
	for _, f := range []string{"qjtth9tf.json", "qjtth9tf.lock", "demo2.json", "Bad_Prefix.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Prefixes()
	if err != nil || strings.Join(got, ",") != "demo2,qjtth9tf" {
		t.Fatalf("Prefixes() = %v, %v; want demo2 and qjtth9tf (state files with valid prefixes only)", got, err)
	}
	_, err = ReadState("qjtb")
	for _, want := range []string{`prefix "qjtb"`, "demo2", "qjtth9tf", "qjump testbed down --prefix P"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("not up under qjtb with two others: %v, want it to say %q", err, want)
		}
	}
	if hint := OthersUp("demo2"); !strings.Contains(hint, "qjump testbed down --prefix qjtth9tf") || strings.Contains(hint, "demo2") {
		t.Errorf("OthersUp(demo2) = %q, want the one other testbed and how to remove it", hint)
	}
}

// tempRunDir points RunDir at an empty directory of the test's own for the rest of the test.
func tempRunDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.Set(t, &RunDir, dir)
	return dir
}

// tempNetnsDir points NetnsDir at an empty directory of the test's own for the rest of the test,
// so that the testbeds others have up on this machine are not seen: a file made there is a
// namespace to Namespaces and Exists (nothing in it can be entered).
func tempNetnsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.Set(t, &NetnsDir, dir)
	return dir
}

// Namespaces of a testbed without its state file are the remains of a maker that was killed before
// it wrote one (a qjump before Up wrote it first did so at any point of the build): ReadState says
// the testbed is incomplete and how to remove it, rather than that none is up, and the message for
// another prefix names them among the others. A suggestion to start one names a prefix that is
// not the default, as the remove command does.
func TestRemainsWithoutAStateAreIncomplete(t *testing.T) {
	tempRunDir(t)
	netns := tempNetnsDir(t)
	// qjfx's remains; an nspair of dataplane tests; a namespace of someone else's
	for _, ns := range []string{"qjfx-sw", "qjfx-h1", "qjfx-h2", "qjnsd12a", "other-ns1"} {
		if err := os.WriteFile(filepath.Join(netns, ns), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	_, err := ReadState("qjfx")
	if !errors.Is(err, ErrIncomplete) || errors.Is(err, ErrNotUp) ||
		!strings.Contains(err.Error(), "qjump testbed down --prefix qjfx") || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("namespaces without a state: %v; want incomplete, removed with qjump testbed down --prefix qjfx", err)
	}
	if got, err := Prefixes(); err != nil || strings.Join(got, ",") != "qjfx" {
		t.Errorf("Prefixes() = %v, %v; want qjfx, whose namespaces are there (and no other)", got, err)
	}
	_, err = ReadState("qjtb")
	for _, want := range []string{"start one with: qjump testbed up --hosts N)", "qjump testbed down --prefix qjfx",
		"one with prefix qjfx, up, incomplete or half-removed"} {
		if !errors.Is(err, ErrNotUp) || !strings.Contains(err.Error(), want) {
			t.Errorf("not up under qjtb beside qjfx's remains: %v; want it to say %q", err, want)
		}
	}
	// qjfx's are remains: "one is up with prefix qjfx" sent the user to a testbed to use.
	if strings.Contains(err.Error(), "up with prefix qjfx") {
		t.Errorf("not up under qjtb beside qjfx's remains: %v; want qjfx not called up", err)
	}
	if _, err := ReadState("demo2"); !strings.Contains(err.Error(), "start one with: qjump testbed up --hosts N --prefix demo2)") {
		t.Errorf("not up under demo2: %v; want the up command with --prefix demo2", err)
	}
}

// The state is read without the lock (status, exec, another prefix's message) while its maker
// writes it (up at its start, Release at its end): a reader never sees it empty or half written.
// It was truncated, then written, and a status beside an up failed with "unexpected end of JSON
// input".
func TestStateIsNeverSeenHalfWritten(t *testing.T) {
	tempRunDir(t)
	c := DefaultConfig(2)
	c.Prefix = "qjfx"
	if err := writeState(State{Config: c, Building: true}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 3000; i++ {
			if err := writeState(State{Config: c, PID: i, Building: i%2 == 0}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var bad error
	for reads := 0; bad == nil; reads++ {
		select {
		case <-done:
			return
		default:
		}
		if s, err := ReadState("qjfx"); err != nil || s.Config.Hosts != 2 {
			bad = fmt.Errorf("read %d, beside a writer: %+v, %v", reads, s, err)
		}
	}
	<-done // the writer is done with the directory before it is removed
	t.Fatalf("%v; want the whole state", bad)
}

// Probe tells a testbed being built (its maker holds the lock) from a killed maker's remains (the
// lock free), and says when it cannot tell (a lock it cannot open: without root, the lock file is
// root's alone), never taking that for a free lock. A record read as Building before a maker
// finished and let the lock go is read again under the lock: that testbed is finished, not
// remains.
func TestProbeTellsABuildingTestbedFromRemains(t *testing.T) {
	dir := tempRunDir(t)
	c := DefaultConfig(2)
	c.Prefix = "qjfx"
	building := State{Config: c, PID: 42, Building: true}
	if err := writeState(building); err != nil {
		t.Fatal(err)
	}
	probe := func(s State, want Condition, wantBuilding bool) {
		t.Helper()
		got, cond, err := s.Probe()
		if err != nil || cond != want || got.Building != wantBuilding {
			t.Errorf("Probe: %+v, condition %d, %v; want condition %d, building %v", got, cond, err, want, wantBuilding)
		}
	}

	lock, err := Acquire("qjfx")
	if err != nil {
		t.Fatal(err)
	}
	probe(building, InUse, true)
	lock.Release()
	probe(building, Killed, true)

	if err := writeState(State{Config: c, PID: 42}); err != nil { // the maker finished since building was read
		t.Fatal(err)
	}
	probe(building, Finished, false)

	lockPath := filepath.Join(dir, "qjfx.lock")
	if err := os.Remove(lockPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(lockPath, 0o755); err != nil { // a lock that cannot be opened, even by root
		t.Fatal(err)
	}
	probe(building, CannotTell, true)
	if err := building.Unusable(CannotTell); err == nil || errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "run status as root to tell") {
		t.Errorf("cannot tell: %v; want not incomplete, and how to tell", err)
	}
}

// A testbed removed between the read of its record and the probe is not up: Probe says so, and
// leaves no lock file behind for a prefix that has nothing.
// A probe of a killed maker's remains finds them killed while another probe holds the lock for
// its moment: probes share it. Taking it whole, one status's probe made another's, or an exec's,
// call the remains in use, and exec went ahead in them (review, helper-81). A maker's whole lock
// still makes the testbed in use.
func TestProbesBesideEachOtherAgree(t *testing.T) {
	tempRunDir(t)
	c := DefaultConfig(2)
	c.Prefix = "qjfx"
	building := State{Config: c, PID: 42, Building: true}
	if err := writeState(building); err != nil {
		t.Fatal(err)
	}
	other, err := acquireShared("qjfx") // another status, probing
	if err != nil {
		t.Fatal(err)
	}
	if _, cond, err := building.Probe(); err != nil || cond != Killed {
		t.Errorf("remains probed beside another probe: condition %v, %v; want incomplete", cond, err)
	}
	other.Release()
	maker, err := Acquire("qjfx")
	if err != nil {
		t.Fatal(err)
	}
	defer maker.Release()
	if _, cond, err := building.Probe(); err != nil || cond != InUse {
		t.Errorf("a testbed whose maker holds the lock: condition %v, %v; want in use", cond, err)
	}
}

func TestProbeOfATestbedRemovedSince(t *testing.T) {
	dir := tempRunDir(t)
	tempNetnsDir(t)
	c := DefaultConfig(2)
	c.Prefix = "qjfx"
	building := State{Config: c, PID: 42, Building: true}
	if _, _, err := building.Probe(); !errors.Is(err, ErrNotUp) {
		t.Errorf("Probe of a record removed since: %v; want not up", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Probe left %s in the run directory", left[0].Name())
	}
}

// A record that says Removing is a testbed being removed while its remover holds the lock, and
// half-removed once the lock is free (a down killed part-way: SIGKILL runs no handler); without
// the lock to probe, Probe cannot tell. Before, a down killed part-way left the record of a
// testbed that was up, with hosts missing.
func TestProbeTellsARemovalFromAKilledOne(t *testing.T) {
	dir := tempRunDir(t)
	c := DefaultConfig(3)
	c.Prefix = "qjfx"
	removing := State{Config: c, PID: 42, Removing: true}
	if err := writeState(removing); err != nil {
		t.Fatal(err)
	}
	lock, err := Acquire("qjfx")
	if err != nil {
		t.Fatal(err)
	}
	if _, cond, err := removing.Probe(); err != nil || cond != BeingRemoved {
		t.Errorf("remover alive: condition %d, %v; want being removed", cond, err)
	}
	lock.Release()
	_, cond, err := removing.Probe()
	if err != nil || cond != HalfRemoved {
		t.Errorf("remover killed: condition %d, %v; want half-removed", cond, err)
	}
	refusal := removing.Unusable(cond)
	if !errors.Is(refusal, ErrHalfRemoved) || !strings.Contains(refusal.Error(), "testbed qjfx is half-removed") ||
		!strings.Contains(refusal.Error(), "remove the rest with: qjump testbed down --prefix qjfx") {
		t.Errorf("half-removed: %v; want it called so, with the command that removes the rest", refusal)
	}

	if err := os.Remove(filepath.Join(dir, "qjfx.lock")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "qjfx.lock"), 0o755); err != nil { // a lock that cannot be opened
		t.Fatal(err)
	}
	_, cond, err = removing.Probe()
	if err != nil || cond != CannotTell || !strings.Contains(removing.Unusable(cond).Error(), "being removed, or the qjump that was removing it was killed") {
		t.Errorf("lock not probed: condition %d, %v, %v; want cannot tell between a removal and a killed one", cond, err, removing.Unusable(cond))
	}
}
