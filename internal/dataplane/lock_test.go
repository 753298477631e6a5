package dataplane

import (
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
		if err := Up(UpOptions{Device: "eth0", Config: testConfig(), Attach: AttachTCX, Replace: true}); err != nil {
			t.Fatalf("up --replace: %v", err)
		}
	})
	if lockErr != nil || !locked {
		t.Errorf("the state lock while up --replace loads its program: held %v, %v; want held", locked, lockErr)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
}
