package agent_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf/link"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestAgentPutsBackARemovedHook: a hook removed by hand leaves the interface unlimited; the agent
// puts it back within a couple of seconds, not at its 30 s resync as before. No event reports a
// TCX link detached, which the agent's check every second finds; in clsact mode the removal of
// the filter or of the qdisc is a tc event, which it acts on at once. The egress tree deleted or
// replaced by hand (the hook still attached) left the levels without strict priority and the cap
// at R, and the agent did nothing: it now builds the tree again by a reload, counters kept, on the
// tc event (the check every second, which the TCX case exercises, is the same check:
// TestTreeRemovalIsATCEvent holds the events that reach it).
func TestAgentPutsBackARemovedHook(t *testing.T) {
	cases := []struct {
		name    string
		clsact  bool     // brought up by hand with --attach clsact, which the agent adopts
		remove  []string // the tc command that removes the hook; none: detach the TCX link
		tree    bool     // remove takes the egress tree, not the hook
		foundBy string
	}{
		{name: "tcx link detached", foundBy: "periodic check"},
		{name: "clsact filter deleted", clsact: true, remove: []string{"filter", "del", "dev", "eth0", "egress"}, foundBy: "tc event"},
		{name: "clsact qdisc deleted", clsact: true, remove: []string{"qdisc", "del", "dev", "eth0", "clsact"}, foundBy: "tc event"},
		{name: "egress tree deleted", remove: []string{"qdisc", "del", "dev", "eth0", "root"}, tree: true, foundBy: "tc event"},
		{name: "egress tree replaced", clsact: true, remove: []string{"qdisc", "replace", "dev", "eth0", "root", "handle", "1:", "pfifo"},
			tree: true, foundBy: "tc event"},
		{name: "a level's class deleted", remove: []string{"class", "del", "dev", "eth0", "classid", "514a:17"}, tree: true, foundBy: "tc event"},
		{name: "a level's leaf qdisc deleted", remove: []string{"qdisc", "del", "dev", "eth0", "parent", "514a:17"}, tree: true,
			foundBy: "tc event"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newAgentNS(t, "qjaghk", 85)
			bin, pair := e.bin, e.pair
			config := clusterFile(t, cgroupConfig)
			if tc.clsact {
				must(t, testbed.InNS(pair.A, bin, "up", "--dev", "eth0", "--config", config, "--attach", "clsact")...)
			}
			a := e.start(config, t.TempDir())
			if tc.clsact {
				if st := status(t, bin, pair.A, "eth0"); st.Generation != 1 {
					t.Fatalf("the agent did not adopt the clsact up: generation %d", st.Generation)
				}
			}

			if tc.remove != nil {
				must(t, testbed.InNS(pair.A, append([]string{"tc"}, tc.remove...)...)...)
			} else {
				detachTCX(t, filepath.Join(testutil.PinDir(t, pair.A), "eth0", "link"))
			}
			found := `msg="qjump's hook is gone from the interface: putting it back" interface=eth0 found_by="` + tc.foundBy + `"`
			if tc.tree {
				found = `msg="qjump's egress tree is gone from the interface: putting it back" interface=eth0 found_by="` + tc.foundBy + `" tree=`
			}
			testutil.WaitFor(t, 3*time.Second, "the agent putting the hook back ("+tc.foundBy+")", func() bool {
				data, _ := os.ReadFile(a.log)
				code, _, _ := a.get("/readyz") // reads the dataplane: attached, and the file's configuration
				return strings.Contains(string(data), found) && code == http.StatusOK
			})
			if st := status(t, bin, pair.A, "eth0"); !st.Attached || !st.EgressTree {
				t.Errorf("after the agent put it back: %+v, want attached with its egress tree", st)
			}
			if tree, _ := a.metric(`qjump_egress_tree{interface="eth0"}`); tree != 1 {
				t.Errorf("qjump_egress_tree %v after the put-back, want 1", tree)
			}
			up, _ := a.metric(`qjump_agent_interface_actions_total{action="up"}`)
			replaced, _ := a.metric(`qjump_agent_interface_actions_total{action="replaced"}`)
			reloaded, _ := a.metric(`qjump_agent_interface_actions_total{action="reloaded"}`)
			// The agent's own up (not the clsact cases': an up by hand, adopted), then the put-back:
			// a hook by down and up, a tree by a reload, which builds it again and keeps the
			// counters and the generation going (it was down and up, counters starting over).
			ups := map[bool]float64{true: 0, false: 1}[tc.clsact]
			wantUps, wantReloads, wantGeneration := ups+1, 0.0, uint64(1)
			if tc.tree {
				wantUps, wantReloads, wantGeneration = ups, 1, 2
			}
			if up+replaced != wantUps || reloaded != wantReloads {
				t.Errorf("interface actions up %v + replaced %v, reloaded %v; want %v and %v: the put-back is counted",
					up, replaced, reloaded, wantUps, wantReloads)
			}
			if st := status(t, bin, pair.A, "eth0"); st.Generation != wantGeneration {
				t.Errorf("generation %d after the put-back, want %d", st.Generation, wantGeneration)
			}
			a.stop()
		})
	}
}

// detachTCX detaches the pinned TCX link at pin, as `bpftool link detach pinned PIN` does.
func detachTCX(t *testing.T, pin string) {
	t.Helper()
	l, err := link.LoadPinnedLink(pin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Detach(); err != nil {
		t.Fatal(err)
	}
}

// TestHandReloadsAreNotAGoneTree: reloads by hand that change a level's leaf qdisc to another kind
// (a shaper to a segmenter and back) delete the old leaf before they add the new one, and the tc
// event of that delete reaches the agent in the middle of the reload. The agent looks at the tree
// then, without the state lock; it must not take the moment for a leaf deleted by hand and build
// the tree again (dataplane's TestReloadIsNeverAGoneTree stops a reload at that moment; this is
// the agent, its tc events and its check every second, beside real reloads).
func TestHandReloadsAreNotAGoneTree(t *testing.T) {
	e := newAgentNS(t, "qjagrl", 87)
	bin, pair := e.bin, e.pair
	config := clusterFile(t, "hosts: 2\nrate: 100M\nmode: shape\nfactors: {7: 1, 3: 1, 0: unlimited}\nagent:\n  interfaces: [eth0]\n")
	a := e.start(config, t.TempDir())
	actions := func() float64 {
		var sum float64
		for _, action := range []string{"up", "reloaded", "replaced"} {
			v, _ := a.metric(`qjump_agent_interface_actions_total{action="` + action + `"}`)
			sum += v
		}
		return sum
	}
	before := actions()
	const rounds = 10
	for range rounds {
		// Level 3 unlimited, then limited again: the file's configuration, which the agent adopts.
		must(t, testbed.InNS(pair.A, bin, "reload", "--dev", "eth0", "--factors", "7=1,3=unlimited,0=unlimited")...)
		must(t, testbed.InNS(pair.A, bin, "reload", "--dev", "eth0", "--factors", "7=1,3=1,0=unlimited")...)
	}
	time.Sleep(1500 * time.Millisecond) // a check every second: at least one after the last reload
	data, _ := os.ReadFile(a.log)
	if strings.Contains(string(data), "egress tree is gone") {
		t.Errorf("the agent took a reload by hand for a gone egress tree:\n%s", data)
	}
	if after := actions(); after != before {
		t.Errorf("interface actions went from %v to %v over reloads by hand: the agent acted on them", before, after)
	}
	if st := status(t, bin, pair.A, "eth0"); st.Generation != 1+2*rounds || !st.EgressTree {
		t.Errorf("after %d reloads by hand: generation %d, egress tree %v; want %d and whole", 2*rounds, st.Generation,
			st.EgressTree, 1+2*rounds)
	}
	a.stop()
}
