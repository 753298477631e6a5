package dataplane

import (
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// snapshot is everything up may touch on eth0 of ns, with the namespace's pins.
func (h *hosts) snapshot(t *testing.T, ns string) string {
	t.Helper()
	return testutil.DeviceSnapshot(t, ns, testutil.PinDir(t, ns))
}

// TestUpDownUpRestores: down leaves eth0 exactly as it was before up, for every hook and mode,
// also when someone else's clsact filter is there.
func TestUpDownUpRestores(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		foreign [][]string // tc commands run before up, whose result must survive
	}{
		{name: "police via tcx"},
		{name: "police via clsact", args: []string{"--attach", "clsact"}},
		{name: "shape via tcx", args: []string{"--mode", "shape"}},
		{name: "shape via clsact", args: []string{"--mode", "shape", "--attach", "clsact"}},
		{name: "clsact beside a foreign filter", args: []string{"--attach", "clsact"}, foreign: [][]string{
			{"qdisc", "add", "dev", "eth0", "clsact"},
			{"filter", "add", "dev", "eth0", "egress", "prio", "7", "u32", "match", "u32", "0", "0", "flowid", "1:1"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHosts(t)
			for _, args := range tc.foreign {
				if _, errOut, code := testutil.Run(t, nil, "ip", append([]string{"netns", "exec", h.a, "tc"}, args...)...); code != 0 {
					t.Fatalf("tc %s: %s", strings.Join(args, " "), errOut)
				}
			}
			before := h.snapshot(t, h.a)
			for round := 1; round <= 2; round++ {
				h.mustQjump(t, h.a, upArgs(tc.args...)...)
				if up := h.snapshot(t, h.a); up == before {
					t.Fatalf("round %d: up changed nothing visible:\n%s", round, up)
				}
				h.mustQjump(t, h.a, "down", "--dev", "eth0")
				if after := h.snapshot(t, h.a); after != before {
					t.Fatalf("round %d: down left eth0 different.\nbefore:\n%s\nafter:\n%s", round, before, after)
				}
			}
			// Down on a device that is not up is not an error.
			h.mustQjump(t, h.a, "down", "--dev", "eth0")
		})
	}
}

// TestDownAfterClsactDeletedByHand: `tc qdisc del dev eth0 clsact` takes QJump's filter with it.
// Down (and so up --replace, which the agent uses to put the hook back) then has no filter to
// delete and gives eth0 back as it was; it used to fail on the kernel's EINVAL for a filter of a
// qdisc that is not there, and left the state pinned.
func TestDownAfterClsactDeletedByHand(t *testing.T) {
	h := newHosts(t)
	before := h.snapshot(t, h.a)
	h.mustQjump(t, h.a, upArgs("--attach", "clsact")...)
	if _, errOut, code := testutil.Run(t, nil, "ip", "netns", "exec", h.a, "tc", "qdisc", "del", "dev", "eth0", "clsact"); code != 0 {
		t.Fatalf("tc qdisc del: %s", errOut)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
	if after := h.snapshot(t, h.a); after != before {
		t.Errorf("down left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestEgressTreeGoneByHand: the egress tree up built, deleted or replaced by hand while the hook
// stays, left the device without strict priority and the cap at R while status called it
// attached and well. Status now says the tree is gone and what is there instead; up without
// --replace refuses, saying so; reload builds it again with its new configuration (it refused,
// and the user had to find up --replace, which starts the counters over), keeping the generation
// going; up --replace builds it again too; and down afterwards gives the device back as it was
// before up (the tree up replaced is put back, a hand-made one too).
func TestEgressTreeGoneByHand(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		before [][]string // tc commands run before up
		tamper [][]string // what is done to the tree by hand
		says   string     // what egress_tree_gone says
	}{
		{name: "root deleted, police via tcx", tamper: [][]string{{"qdisc", "del", "dev", "eth0", "root"}},
			says: "the root qdisc is noqueue 0: (the kernel's default), not QJump's htb 514a:"},
		{name: "root deleted, shape via clsact", args: []string{"--mode", "shape", "--attach", "clsact"},
			tamper: [][]string{{"qdisc", "del", "dev", "eth0", "root"}}, says: "the root qdisc is noqueue 0:"},
		{name: "root replaced over a hand-made tbf", args: []string{"--mode", "shape"},
			before: [][]string{{"qdisc", "add", "dev", "eth0", "root", "handle", "1:", "tbf", "rate", "1gbit", "burst", "32k", "latency", "10ms"}},
			tamper: [][]string{{"qdisc", "replace", "dev", "eth0", "root", "handle", "2:", "pfifo", "limit", "100"}},
			says:   "the root qdisc is pfifo 2:, not QJump's htb 514a:"},
		{name: "a level's class deleted", tamper: [][]string{{"class", "del", "dev", "eth0", "classid", "514a:17"}},
			says: "QJump's htb 514a: has lost its level 7's class 514a:17"},
		{name: "a level's leaf qdisc deleted", args: []string{"--mode", "shape"},
			tamper: [][]string{{"qdisc", "del", "dev", "eth0", "parent", "514a:15"}},
			says:   "QJump's htb 514a: has lost its level 5's leaf qdisc 5145: (deleted by hand)"},
	}
	tc := func(t *testing.T, ns string, args []string) {
		t.Helper()
		if _, errOut, code := testutil.Run(t, nil, "ip", append([]string{"netns", "exec", ns, "tc"}, args...)...); code != 0 {
			t.Fatalf("tc %s: %s", strings.Join(args, " "), errOut)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHosts(t)
			for _, args := range c.before {
				tc(t, h.a, args)
			}
			before := h.snapshot(t, h.a)
			h.mustQjump(t, h.a, upArgs(c.args...)...)
			if d := h.status(t, h.a).Devices[0]; !d.Attached || !d.EgressTree || d.EgressTreeGone != "" {
				t.Fatalf("after up: attached %v, egress_tree %v (%q); want both", d.Attached, d.EgressTree, d.EgressTreeGone)
			}
			for _, args := range c.tamper {
				tc(t, h.a, args)
			}
			d := h.status(t, h.a).Devices[0]
			if !d.Attached || d.EgressTree || !strings.Contains(d.EgressTreeGone, c.says) {
				t.Errorf("after tc %v: attached %v, egress_tree %v, egress_tree_gone %q; want attached, the tree gone, saying %q",
					c.tamper, d.Attached, d.EgressTree, d.EgressTreeGone, c.says)
			}
			if len(d.Warnings) == 0 || !strings.Contains(d.Warnings[0], "qjump reload --dev eth0") {
				t.Errorf("warnings %q; want the first to say qjump reload --dev eth0", d.Warnings)
			}
			table := h.mustQjump(t, h.a, "status")
			if first, _, _ := strings.Cut(table, "\n"); !strings.Contains(first, "attached via") || !strings.Contains(first, "EGRESS TREE GONE") {
				t.Errorf("status: %q; want attached and EGRESS TREE GONE", first)
			}
			if _, errOut, code := h.qjump(t, h.a, upArgs(c.args...)...); code != 1 || !strings.Contains(errOut, "egress tree is gone") {
				t.Errorf("up without --replace: exit %d: %s; want 1, saying the egress tree is gone", code, errOut)
			}
			if _, errOut, code := h.qjump(t, h.a, "reload", "--dev", "eth0", "--factors", "7=10,5=20,0=unlimited"); code != 0 ||
				!strings.Contains(errOut, "qjump: eth0's egress tree was gone ("+c.says) ||
				!strings.Contains(errOut, "built again with the new configuration") {
				t.Errorf("reload: exit %d: %s; want 0, saying the egress tree was gone and is built again", code, errOut)
			}
			if d := h.status(t, h.a).Devices[0]; !d.Attached || !d.EgressTree || d.Generation != 2 {
				t.Errorf("after reload: attached %v, egress_tree %v (%q), generation %d; want both, generation 2",
					d.Attached, d.EgressTree, d.EgressTreeGone, d.Generation)
			}
			// With nothing to change, reload builds a gone tree again with what runs, and only that.
			budget5 := h.status(t, h.a).Devices[0].Level(t, 5).BudgetBytes
			for _, args := range c.tamper {
				tc(t, h.a, args)
			}
			if _, errOut, code := h.qjump(t, h.a, "reload", "--dev", "eth0"); code != 0 || !strings.Contains(errOut, "built again") {
				t.Errorf("reload with no flags over a gone tree: exit %d: %s; want 0, the tree built again", code, errOut)
			}
			if d := h.status(t, h.a).Devices[0]; !d.EgressTree || d.Generation != 3 || budget5 == nil || d.Level(t, 5).BudgetBytes == nil ||
				*d.Level(t, 5).BudgetBytes != *budget5 {
				t.Errorf("after reload with no flags: egress_tree %v (%q), generation %d, level 5's budget %v; want the tree, generation 3, "+
					"the budget the reload before gave it (%v)", d.EgressTree, d.EgressTreeGone, d.Generation, d.Level(t, 5).BudgetBytes, budget5)
			}
			if _, errOut, code := h.qjump(t, h.a, "reload", "--dev", "eth0"); code != 2 || !strings.Contains(errOut, "nothing to reload") {
				t.Errorf("reload with no flags over a whole tree: exit %d: %s; want 2, nothing to reload", code, errOut)
			}
			for _, args := range c.tamper {
				tc(t, h.a, args)
			}
			h.mustQjump(t, h.a, upArgs(append([]string{"--replace"}, c.args...)...)...)
			if d := h.status(t, h.a).Devices[0]; !d.Attached || !d.EgressTree {
				t.Errorf("after up --replace: attached %v, egress_tree %v (%q); want both", d.Attached, d.EgressTree, d.EgressTreeGone)
			}
			for _, args := range c.tamper {
				tc(t, h.a, args)
			}
			h.mustQjump(t, h.a, "down", "--dev", "eth0")
			if after := h.snapshot(t, h.a); after != before {
				t.Errorf("down after the tree was gone left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestStatusOfADeletedInterface: an interface deleted while up takes the egress tree with it;
// status --json said egress_tree true and no warning (review, helper-80). It now says the
// interface is gone and that the state stays until a down, which then removes it.
func TestStatusOfADeletedInterface(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	if _, errOut, code := testutil.Run(t, nil, "ip", "netns", "exec", h.a, "ip", "link", "del", "eth0"); code != 0 {
		t.Fatalf("ip link del: %s", errOut)
	}
	s := h.status(t, h.a)
	if len(s.Devices) != 1 {
		t.Fatalf("status after eth0 was deleted: %+v; want its one device", s)
	}
	d := s.Devices[0]
	if d.Attached || d.EgressTree || d.EgressTreeGone != "the interface is gone" ||
		len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "eth0 is gone") || !strings.Contains(d.Warnings[0], "qjump down --dev eth0") {
		t.Errorf("status of a deleted eth0: attached %v, egress_tree %v (%q), warnings %q; want neither, the interface gone, "+
			"and a warning saying so with the down", d.Attached, d.EgressTree, d.EgressTreeGone, d.Warnings)
	}
	// The watch says so too (review, helper-82: its egress_tree stayed true).
	watch := h.mustQjump(t, h.a, "status", "--watch", "--json", "--count", "1", "--interval", "10ms")
	if !strings.Contains(watch, `"attached":false,"egress_tree":false`) {
		t.Errorf("status --watch --json of a deleted eth0: %s; want attached and egress_tree false", watch)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
	if s := h.status(t, h.a); len(s.Devices) != 0 {
		t.Errorf("status after down: %+v; want nothing", s.Devices)
	}
}
