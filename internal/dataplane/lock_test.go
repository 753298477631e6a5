package dataplane

import (
	"strings"
	"sync"
	"testing"
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
