package dataplane

import (
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/tctree"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestReloadIsNeverAGoneTree: a reload that gives a level a leaf of another kind (here level 5,
// from a shaper to a segmenter) deletes the old leaf and then adds the new one, holding the state
// lock. The tree check looks at the leaves, and the agent checks without the lock: had it taken
// that moment for a tree deleted by hand, it would have built the whole tree again. The test
// stops the reload between the delete and the add, where the check without the lock does see the
// leaf missing, and has the agent's check (Present) look then: it must wait for the reload and
// find the tree whole.
func TestReloadIsNeverAGoneTree(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, "up", "--dev", "eth0", "--mode", "shape", "--hosts", "10", "--rate", "24M", "--packet", "1500B",
		"--factors", "7=5,5=10,0=unlimited")
	rechecking := make(chan struct{}, 1)
	testutil.Set(t, &beforeTreeRecheck, func() { rechecking <- struct{}{} })
	var inGap string // what the check without the lock says in the gap
	var pr Presence
	var prErr error
	checked := make(chan struct{})
	gaps := 0
	testutil.Set(t, &treeChanger, func(o tcObject, ifindex, flags int) error {
		err := o.send(ifindex, flags)
		if err != nil || o.cmd != unix.RTM_DELQDISC || o.parent != leafParent(5) {
			return err
		}
		gaps++
		inGap = treeGone(record{Egress: true, Ifindex: ifindex})
		go func() {
			defer close(checked)
			if err := host.InNetns(h.a, func() { pr, prErr = Present("eth0") }); err != nil {
				prErr = err
			}
		}()
		select {
		case <-rechecking: // it found the leaf missing and waits for the lock
		case <-checked:
		case <-time.After(10 * time.Second):
			t.Error("the check did not come back nor wait for the lock within 10 s")
		}
		return nil
	})
	if err := reloadInProcess(t, h.a, shapeConfig("{7: 5, 5: unlimited, 0: unlimited}")...); err != nil {
		t.Fatal(err)
	}
	if gaps != 1 {
		t.Fatalf("the reload deleted level 5's leaf %d times, want once (its kind changes): the test tests nothing", gaps)
	}
	<-checked
	if !strings.Contains(inGap, "level 5's leaf qdisc 5145: (deleted by hand)") {
		t.Errorf("between the reload's delete and add, the check without the lock says %q; want level 5's leaf missing", inGap)
	}
	if prErr != nil || !pr.Attached || pr.TreeGone != "" {
		t.Errorf("Present in the middle of a reload: %+v, %v; want attached with the whole tree: a reload read as a gone tree",
			pr, prErr)
	}
	if d := h.status(t, h.a).Devices[0]; d.Generation != 2 || !d.EgressTree {
		t.Errorf("after the reload: generation %d, egress tree %v; want 2 and whole", d.Generation, d.EgressTree)
	}
}

// TestReloadOverAGoneTreeRollsBack: a reload over a tree deleted by hand builds the new
// configuration's tree whole. When the kernel refuses part of it (here level 5's new TBF), the
// tree of the configuration that ran is built instead, as up built it, and that configuration
// still runs: the reload leaves QJump whole either way, never without its tree.
func TestReloadOverAGoneTreeRollsBack(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, "up", "--dev", "eth0", "--mode", "shape", "--hosts", "10", "--rate", "24M", "--packet", "1500B",
		"--factors", "7=5,5=10,0=unlimited")
	built := egressOf(t, h.a)
	h.tc(t, h.a, "qdisc", "del", "dev", "eth0", "root")
	refused := errors.New("refused by the test")
	refusals := 0
	testutil.Set(t, &treeChanger, func(o tcObject, ifindex, flags int) error {
		if o.handle == leafHandle(5) && o.kind == "tbf" && refusals == 0 { // the new tree's, not the old one's after
			refusals++
			return refused
		}
		return o.send(ifindex, flags)
	})
	err := reloadInProcess(t, h.a, shapeConfig("{7: 5, 5: 5, 0: unlimited}")...)
	if !errors.Is(err, refused) || !strings.Contains(err.Error(), "the configuration that ran still runs, its egress tree built again") {
		t.Fatalf("reload over a gone tree, its new tree refused: %v; want the refusal and the old tree built again said", err)
	}
	if after := egressOf(t, h.a); !tctree.Equal(built, after) {
		t.Errorf("the tree after the refused reload is not the one up built for the configuration that runs:\n%s",
			tctree.Diff(built, after))
	}
	if d := h.status(t, h.a).Devices[0]; d.Generation != 1 || !d.Attached || !d.EgressTree {
		t.Errorf("after the refused reload: generation %d, attached %v, egress tree %v (%q); want 1, attached, whole",
			d.Generation, d.Attached, d.EgressTree, d.EgressTreeGone)
	}
}
