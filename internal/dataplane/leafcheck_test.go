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

// TestLeafOfAnotherKindIsAGoneTree: a level's leaf qdisc deleted by hand and another kind added in
// its place with the same handle passed the tree check, which compared the leaf's handle alone:
// the level had lost its shaper or segmenter while status called the tree whole, and neither the
// agent nor a reload would build it again. (The kernel changes no qdisc into another kind, so
// `tc qdisc replace` at the same handle is refused: by hand it is a delete and an add, as a reload
// does it.) The check now compares each leaf's kind with what up built there: status says what is
// there instead, up refuses, and a reload builds the tree again whole.
func TestLeafOfAnotherKindIsAGoneTree(t *testing.T) {
	cases := []struct {
		name   string
		up     []string
		parent string   // the level's class
		add    []string // what is added in the leaf's place, at its handle
		says   string
	}{
		{name: "a shaper replaced by a pfifo", parent: "514a:17", add: []string{"handle", "5147:", "pfifo", "limit", "10"},
			up:   []string{"--mode", "shape", "--hosts", "10", "--rate", "24M", "--packet", "1500B", "--factors", "7=5,5=10,0=unlimited"},
			says: "level 7's leaf qdisc 5147: is a pfifo put there by hand, not QJump's shaper (tbf)"},
		{name: "a segmenter replaced by a pfifo", parent: "514a:10", add: []string{"handle", "5140:", "pfifo", "limit", "10"},
			up:   upArgs()[3:],
			says: "level 0's leaf qdisc 5140: is a pfifo put there by hand, not QJump's segmenter (tbf)"},
		// R above the veth's 10 Gb/s: the root runs at the device's speed, the leaves are FIFOs.
		{name: "a fifo replaced by a bfifo", parent: "514a:15", add: []string{"handle", "5145:", "bfifo", "limit", "10000"},
			up:   []string{"--hosts", "10", "--rate", "20G", "--packet", "1500B", "--factors", "7=1,5=1,0=unlimited"},
			says: "level 5's leaf qdisc 5145: is a bfifo put there by hand, not QJump's fifo (pfifo)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHosts(t)
			h.mustQjump(t, h.a, append([]string{"up", "--dev", "eth0"}, c.up...)...)
			built := egressOf(t, h.a)
			h.tc(t, h.a, "qdisc", "del", "dev", "eth0", "parent", c.parent)
			h.tc(t, h.a, append([]string{"qdisc", "add", "dev", "eth0", "parent", c.parent}, c.add...)...)
			d := h.status(t, h.a).Devices[0]
			if !d.Attached || d.EgressTree || !strings.Contains(d.EgressTreeGone, c.says) {
				t.Fatalf("with a leaf of another kind at its handle: attached %v, egress_tree %v (%q); want attached, the tree gone, saying %q",
					d.Attached, d.EgressTree, d.EgressTreeGone, c.says)
			}
			if _, errOut, code := h.qjump(t, h.a, append([]string{"up", "--dev", "eth0"}, c.up...)...); code != 1 ||
				!strings.Contains(errOut, "egress tree is gone") {
				t.Errorf("up without --replace: exit %d: %s; want 1, saying the egress tree is gone", code, errOut)
			}
			if _, errOut, code := h.qjump(t, h.a, "reload", "--dev", "eth0"); code != 0 || !strings.Contains(errOut, c.says) ||
				!strings.Contains(errOut, "built again") {
				t.Errorf("reload: exit %d: %s; want 0, saying what was there and that the tree is built again", code, errOut)
			}
			if d := h.status(t, h.a).Devices[0]; !d.EgressTree || d.Generation != 2 {
				t.Errorf("after the reload: egress tree %v (%q), generation %d; want whole, 2", d.EgressTree, d.EgressTreeGone, d.Generation)
			}
			if after := egressOf(t, h.a); !tctree.Equal(built, after) {
				t.Errorf("the tree after the reload is not the one up built:\n%s", tctree.Diff(built, after))
			}
		})
	}
}
