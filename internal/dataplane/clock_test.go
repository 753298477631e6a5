package dataplane

import (
	"testing"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestClockReadOnlyWhereCharged: the program reads the clock only to charge a budget, police
// mode's work (bpf/qjump.bpf.c, the top): the read is about a third of what a packet costs
// (docs/performance.md). A shape-mode copy, whose configuration the verifier knows, must keep no
// call to bpf_ktime_get_ns after the verifier drops police mode's code; a police-mode copy must
// keep one, or this test would pass for a dump that shows no calls at all.
func TestClockReadOnlyWhereCharged(t *testing.T) {
	testutil.RequirePriv(t, "loading the program")
	// The kernel rewrites a helper call's number into the helper's address, so the call to look
	// for is the one the clock-only floor makes, loaded in this kernel.
	var floors floorObjects
	if err := loadFloorObjects(&floors, nil); err != nil {
		t.Fatal(err)
	}
	defer floors.Close()
	floorCalls := loadedCalls(t, floors.FloorClock)
	if len(floorCalls) != 1 {
		t.Fatalf("the clock-only floor makes %d kinds of call, want its one read of the clock", len(floorCalls))
	}
	var clock int64
	for c := range floorCalls {
		clock = c
	}
	for _, tc := range []struct {
		mode  config.Mode
		reads bool
	}{{config.Police, true}, {config.Shape, false}} {
		objs, err := benchObjects(tc.mode, benchLevel)
		if err != nil {
			t.Fatal(err)
		}
		calls := loadedCalls(t, objs.QjumpEgress)
		objs.Close()
		if got := calls[clock]; got != tc.reads {
			t.Errorf("%s mode: the loaded program reads the clock: %v, want %v", tc.mode, got, tc.reads)
		}
	}
}

// loadedCalls is the set of helper calls in prog as the kernel verified and rewrote it, keyed by
// the call's rewritten immediate.
func loadedCalls(t *testing.T, prog *ebpf.Program) map[int64]bool {
	t.Helper()
	info, err := prog.Info()
	if err != nil {
		t.Fatal(err)
	}
	insns, err := info.Instructions()
	if err != nil {
		t.Fatalf("the loaded program's instructions: %v", err)
	}
	calls := map[int64]bool{}
	for _, ins := range insns {
		if ins.IsBuiltinCall() {
			calls[ins.Constant] = true
		}
	}
	return calls
}
