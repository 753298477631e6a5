package dataplane

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestConcurrentUpsOneWins: four `qjump up` at once on one device (two config-management runs, an
// agent and an operator) take turns on the state lock: one brings QJump up, the others find it up
// and change nothing, and down then puts the device back as it was. With the lock left out (f run
// unlocked in withState), the ups run into each other's half-built state and this test fails.
func TestConcurrentUpsOneWins(t *testing.T) {
	h := newHosts(t)
	before := h.snapshot(t, h.a)
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		codes, errs := make([]int, 4), make([]string, 4)
		for i := range codes {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, errs[i], codes[i] = h.qjump(t, h.a, upArgs("--mode", "shape")...)
			}(i)
		}
		wg.Wait()
		up, already := 0, 0
		for i, code := range codes {
			switch {
			case code == 0:
				up++
			case code == 1 && strings.Contains(errs[i], "already up"):
				already++
			default:
				t.Errorf("round %d: an up exited %d: %s", round, code, errs[i])
			}
		}
		if up != 1 || already != 3 {
			t.Errorf("round %d: %d ups succeeded and %d found QJump up; want 1 and 3", round, up, already)
		}
		if s := h.status(t, h.a); len(s.Devices) != 1 || !s.Devices[0].Attached || s.Devices[0].Generation != 1 {
			t.Errorf("round %d: status %+v; want eth0 attached at generation 1", round, s)
		}
		h.mustQjump(t, h.a, "down", "--dev", "eth0")
		if after := h.snapshot(t, h.a); after != before {
			t.Fatalf("round %d: down left eth0 different.\nbefore:\n%s\nafter:\n%s", round, before, after)
		}
	}
}

// TestReplaceKeepsTheStateLock: up --replace takes the running QJump down and builds the new one
// under one hold of the state lock. Taking it down must not remove the state directory whose
// lock up holds: another qjump would then lock the directory up makes again and run beside it
// (an up beside it failed on the pins and its clean-up took down the up that had succeeded).
func TestReplaceKeepsTheStateLock(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	root := stateRoot(t)
	var locked bool
	var lockErr error
	beforeLoad = func() { locked, lockErr = stateLocked(root) }
	t.Cleanup(func() { beforeLoad = func() {} })
	testutil.InNetns(t, h.a, func() {
		if _, err := Up(UpOptions{Device: "eth0", Config: testConfig(), Attach: AttachTCX, Replace: true}); err != nil {
			t.Fatalf("up --replace: %v", err)
		}
	})
	if lockErr != nil || !locked {
		t.Errorf("the state lock while up --replace loads its program: held %v, %v; want held", locked, lockErr)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
}

// TestReloadFromAnOlderGenerationChangesNothing: two reloads that each change one flag read the
// running configuration, then take turns on the lock. The second must not install its copy of
// the configuration the first replaced: that would undo the first's change and report success.
func TestReloadFromAnOlderGenerationChangesNothing(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, "up", "--dev", "eth0", "--mode", "shape", "--hosts", "10", "--rate", "24M", "--packet", "1500B",
		"--factors", "7=5,5=10,0=unlimited")
	first := solvedConfig(t, shapeConfig("{7: 5, 5: 5, 0: unlimited}")...)
	second := solvedConfig(t, shapeConfig("{7: 5, 5: 10, 0: unlimited}", "default_level: 5")...)
	var firstErr, secondErr error
	testutil.InNetns(t, h.a, func() {
		_, firstErr = ReloadFrom("eth0", 1, first)
		_, secondErr = ReloadFrom("eth0", 1, second)
	})
	if firstErr != nil {
		t.Fatalf("the first reload, from generation 1: %v", firstErr)
	}
	if !errors.Is(secondErr, ErrChangedMeanwhile) || !strings.Contains(secondErr.Error(), "run it again") {
		t.Errorf("the second reload, also from generation 1: %v; want it refused, saying to run it again", secondErr)
	}
	want, _ := first.Model.Budget(first.Model.Factors[5])
	d := h.status(t, h.a).Devices[0]
	if d.Generation != 2 || *d.Level(t, 5).BudgetBytes != int64(want) {
		t.Errorf("after both: generation %d, level 5's budget %d; want 2 and the first reload's %d",
			d.Generation, *d.Level(t, 5).BudgetBytes, want)
	}
}

// TestStatusDuringUpAndDown: status reads without the state lock, so it can list a device whose
// up has not written its record yet, or whose down removes it before status reads it. Such a
// device is skipped: status must not fail for every device because one comes or goes.
func TestStatusDuringUpAndDown(t *testing.T) {
	h := newHosts(t)
	done := make(chan struct{})
	var ups, downs int // that succeeded: read once done is closed
	go func() {
		defer close(done)
		for range 15 {
			if _, _, code := h.qjump(t, h.a, upArgs()...); code == 0 {
				ups++
			}
			if _, _, code := h.qjump(t, h.a, "down", "--dev", "eth0"); code == 0 {
				downs++
			}
		}
	}()
	var reads, failures, sawUp int
	var first error
	testutil.InNetns(t, h.a, func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			reads++
			all, err := List()
			if err != nil {
				failures++
				if first == nil {
					first = err
				}
			} else if len(all) > 0 {
				sawUp++
			}
		}
	})
	if failures > 0 {
		t.Errorf("%d of %d status reads failed while eth0 came up and went down; the first: %v", failures, reads, first)
	}
	// Without ups and downs that succeed, and reads that found eth0 up, no read met a device
	// coming or going, and the check above could not fail.
	if ups != 15 || downs != 15 || sawUp == 0 {
		t.Errorf("%d of 15 ups and %d of 15 downs succeeded, %d of %d status reads found eth0 up: the reads did not race them",
			ups, downs, sawUp, reads)
	}
	t.Logf("%d status reads beside 15 ups and downs, %d of them with eth0 up", reads, sawUp)
}

// TestReplaceRefusedLeavesTheRunningQJump: up --replace with a configuration that cannot be built
// changes nothing: the QJump that runs keeps running. Before, the running one was taken down
// first, and the refusal (then the device's egress plan's; since 2026-11-28 the model's, which
// calc shares) left the interface with no QJump at all (the agent's change of mode met it).
func TestReplaceRefusedLeavesTheRunningQJump(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	running := h.snapshot(t, h.a)
	// A level 7 bucket of 2.25 GB: more than a TBF holds.
	_, errOut, code := h.qjump(t, h.a, "up", "--replace", "--dev", "eth0", "--mode", "shape", "--hosts", "1000000",
		"--rate", "10G", "--packet", "1500B", "--factors", "7=1500000,0=unlimited")
	if code == 0 || !strings.Contains(errOut, "more than a TBF holds") {
		t.Fatalf("up --replace with a bucket no TBF holds: exit %d, %q; want refused for it", code, errOut)
	}
	if now := h.snapshot(t, h.a); now != running {
		t.Errorf("a refused up --replace changed eth0:\n%s\nwant, as before:\n%s", now, running)
	}
}

// The state lock is taken only on a directory that is root's alone: on a bpffs mounted with the
// kernel's default mode (1777) any local user can make <bpffs>/qjump before QJump does, and could
// then hold the lock for ever or move the pins away. Such a directory is refused with what to do,
// and the lock is not taken; one that is root's alone is locked as before.
func TestStateLockRefusesADirectoryNotRootsAlone(t *testing.T) {
	testutil.RequirePriv(t, "a directory of another user")
	mine := filepath.Join(t.TempDir(), "qjump")
	unlock, err := lockState(context.Background(), mine, true)
	if err != nil {
		t.Fatalf("lock a state directory made by root: %v", err)
	}
	unlock()
	theirs := filepath.Join(t.TempDir(), "qjump")
	if err := os.Mkdir(theirs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err = lockState(context.Background(), theirs, true)
	if err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") || !strings.Contains(err.Error(), "rm -r "+theirs) {
		t.Errorf("lock a state directory of uid 65534: %v, want refused, naming its owner and what to do", err)
	}
	open := filepath.Join(t.TempDir(), "qjump")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := lockState(context.Background(), open, true); err == nil || !strings.Contains(err.Error(), "may be written by others") {
		t.Errorf("lock a state directory of mode 0777: %v, want refused", err)
	}
}
