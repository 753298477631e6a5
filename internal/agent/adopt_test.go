package agent_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestAdoptReloadAndStop: an agent adopts a hand-made `qjump up` of its own file untouched,
// reloads one of another configuration in place, leaves QJump attached when stopped, and removes
// it when stopped with --down-on-exit.
func TestAdoptReloadAndStop(t *testing.T) {
	e := newAgentNS(t, "qjagad", 78)
	bin, pair := e.bin, e.pair
	qjump := func(args ...string) string {
		t.Helper()
		argv := testbed.InNS(pair.A, append([]string{bin}, args...)...)
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("qjump %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	config := clusterFile(t, cgroupConfig)

	// The same file brought up by hand (up skips the agent: section): adopted, generation 1.
	qjump("up", "--dev", "eth0", "--config", config)
	a := e.start(config, t.TempDir())
	if st := status(t, bin, pair.A, "eth0"); st.Generation != 1 {
		t.Errorf("agent changed a dataplane that already ran its file: generation %d", st.Generation)
	}
	if v, _ := a.metric(`qjump_agent_interface_actions_total{action="adopted"}`); v != 1 {
		t.Errorf("adopted %v times, want 1", v)
	}
	a.stop()
	if st := status(t, bin, pair.A, "eth0"); !st.Attached {
		t.Errorf("SIGTERM without --down-on-exit detached QJump")
	}

	// Another configuration by hand: the agent reloads it in place (generation 2), no detach.
	qjump("up", "--replace", "--dev", "eth0", "--hosts", "5", "--rate", "1G")
	a = e.start(config, t.TempDir(), "--down-on-exit")
	if st := status(t, bin, pair.A, "eth0"); st.Generation != 2 || !st.Attached {
		t.Errorf("another configuration: generation %d, attached %v; want reloaded to 2", st.Generation, st.Attached)
	}
	a.stop()
	if out := qjump("status", "--json"); !strings.Contains(out, `"devices": []`) {
		t.Errorf("--down-on-exit left QJump up:\n%s", out)
	}
}

// TestAgentReplacesAKilledUp: an up killed before it loaded the program (a node agent killed by
// the OOM killer or a kubelet, say) leaves its record and egress tree pinned and nothing attached.
// A restarted agent must replace it, not fail on it at every reconcile. The leftover is made as
// the kill leaves it: a finished up with every pin but the record and the saved egress removed,
// which also detaches the program (nothing else holds its TCX link).
func TestAgentReplacesAKilledUp(t *testing.T) {
	e := newAgentNS(t, "qjagkl", 79)
	bin, pair := e.bin, e.pair
	must(t, testbed.InNS(pair.A, bin, "up", "--dev", "eth0", "--hosts", "5", "--rate", "1G")...)
	dir := filepath.Join(testutil.PinDir(t, pair.A), "eth0")
	pins, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pins {
		if p.Name() != "meta" && p.Name() != "egress" {
			if err := os.Remove(filepath.Join(dir, p.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	if st := status(t, bin, pair.A, "eth0"); st.Attached {
		t.Fatalf("the leftover is still attached: %+v", st)
	}
	config := clusterFile(t, cgroupConfig)
	a := e.start(config, t.TempDir(), "--down-on-exit")
	if st := status(t, bin, pair.A, "eth0"); !st.Attached || st.Generation != 1 {
		t.Errorf("after the agent: attached %v, generation %d; want a new up, attached", st.Attached, st.Generation)
	}
	if v, _ := a.metric(`qjump_agent_interface_actions_total{action="replaced"}`); v != 1 {
		t.Errorf("replaced %v times, want 1", v)
	}
	a.stop()
}

// TestAgentReplacesAnOrphan: QJump's state removed from bpffs whole leaves its egress tree on the
// device with nothing to say whose it is, which up alone refuses to build over; the agent, whose
// interface it is, brings QJump up in its place.
func TestAgentReplacesAnOrphan(t *testing.T) {
	e := newAgentNS(t, "qjagor", 78)
	bin, pair := e.bin, e.pair
	must(t, testbed.InNS(pair.A, bin, "up", "--dev", "eth0", "--hosts", "5", "--rate", "1G")...)
	if err := os.RemoveAll(filepath.Join(testutil.PinDir(t, pair.A), "eth0")); err != nil {
		t.Fatal(err)
	}
	config := clusterFile(t, cgroupConfig)
	a := e.start(config, t.TempDir(), "--down-on-exit")
	if st := status(t, bin, pair.A, "eth0"); !st.Attached || st.Generation != 1 {
		t.Errorf("after the agent: attached %v, generation %d; want a new up, attached", st.Attached, st.Generation)
	}
	if v, _ := a.metric(`qjump_agent_apply_errors_total{operation="up"}`); v != 0 {
		t.Errorf("%v errors bringing it up, want none", v)
	}
	a.stop()
}

// TestInterfaceDroppedWhileStoppedIsTakenDown: the file stops matching an interface while the
// agent is stopped (an upgrade, a node drained and edited). The agent that starts next takes
// QJump off it, as a running one would have: it remembers in its state which interfaces it ran
// QJump on. Before, a fresh agent knew only the interfaces that matched, and the old
// configuration stayed on that one for good, with /readyz ok.
func TestInterfaceDroppedWhileStoppedIsTakenDown(t *testing.T) {
	e := newAgentNS(t, "qjagdr", 79)
	bin, pair := e.bin, e.pair
	config, stateDir := filepath.Join(t.TempDir(), "cluster.yaml"), t.TempDir()
	writeFile(t, config, cgroupConfig)
	e.start(config, stateDir).stop()
	if st := status(t, bin, pair.A, "eth0"); !st.Attached {
		t.Fatal("SIGTERM without --down-on-exit detached QJump")
	}
	writeFile(t, config, strings.Replace(cgroupConfig, "interfaces: [eth0]", `interfaces: ["qjnone*"]`, 1))
	a := startAgent(t, bin, pair.A, config, "127.0.0.1:0", stateDir)
	defer a.stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		argv := testbed.InNS(pair.A, bin, "status", "--json")
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err == nil && strings.Contains(string(out), `"devices": []`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("QJump still up on eth0 10 s after an agent started with a file that no longer matches it:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRenameToAnotherMatchingNameKeepsQJump: an interface the agent runs QJump on is renamed to
// another name the file matches (eth0 to ens9 under ["eth*", "ens*"], as a driver reload may do).
// QJump stays on it: the agent's next look at every interface must not take the old name down,
// which would take QJump off the renamed device (down follows the state, and the state is the
// renamed device's), leaving it unlimited until a later reconcile.
func TestRenameToAnotherMatchingNameKeepsQJump(t *testing.T) {
	e := newAgentNS(t, "qjagrn", 80)
	bin, pair := e.bin, e.pair
	config := filepath.Join(t.TempDir(), "cluster.yaml")
	file := strings.Replace(cgroupConfig, "interfaces: [eth0]", `interfaces: ["eth*", "ens*"]`, 1)
	writeFile(t, config, file)
	a := e.start(config, t.TempDir())
	defer a.stop()
	for _, args := range [][]string{{"link", "set", "eth0", "down"}, {"link", "set", "eth0", "name", "ens9"}, {"link", "set", "ens9", "up"}} {
		must(t, testbed.InNS(pair.A, append([]string{"ip"}, args...)...)...)
	}
	a.waitReady(10 * time.Second)
	writeFile(t, config, file+"# an edit: the agent looks at every interface again\n")
	time.Sleep(1500 * time.Millisecond) // the edit is applied within a second
	if v, _ := a.metric(`qjump_agent_interface_actions_total{action="down"}`); v != 0 {
		t.Errorf("the agent took QJump down %v times after a rename to a matching name, want 0", v)
	}
	if st := status(t, bin, pair.A, "ens9"); !st.Attached {
		t.Errorf("ens9 (eth0 renamed) has no QJump attached after the agent looked at every interface")
	}
}

// TestRenameToAnUnmatchedNameTakesQJumpOff: an interface the agent runs QJump on is renamed to a
// name the file does not match. Its event arrives under the new name, which the file ignores; the
// agent must still notice that one of its own is gone by name and take QJump off at once, not at
// the next resync 30 s later.
func TestRenameToAnUnmatchedNameTakesQJumpOff(t *testing.T) {
	e := newAgentNS(t, "qjagru", 82)
	bin, pair := e.bin, e.pair
	a := e.start(clusterFile(t, cgroupConfig), t.TempDir())
	defer a.stop()
	must(t, testbed.InNS(pair.A, "ip", "link", "set", "eth0", "name", "xyz0")...)
	waitFor(t, "QJump taken off eth0 renamed xyz0", func() bool {
		v, _ := a.metric(`qjump_agent_interface_actions_total{action="down"}`)
		return v == 1
	})
	argv := testbed.InNS(pair.A, bin, "status", "--json")
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil || strings.Contains(string(out), `"xyz0"`) {
		t.Errorf("after the rename: status %v\n%s\nwant QJump on no interface", err, out)
	}
}

// TestNewInterfaceTakesARenamedOnesName: an interface the agent runs QJump on is renamed to
// another name the file matches (eth0 to eth5 under ["eth*"]), and a new interface takes its old
// name. The new eth0 gets QJump of its own, and eth5 keeps its own. Before, the agent found the
// state still under the name eth0, the renamed eth5's, attached, and took it for the new eth0's:
// the new eth0 stayed bare with /readyz ok (review, helper-85).
func TestNewInterfaceTakesARenamedOnesName(t *testing.T) {
	e := newAgentNS(t, "qjagrt", 94)
	bin, pair := e.bin, e.pair
	t.Cleanup(func() { // before the pair's own cleanup, which takes eth0 down only
		argv := testbed.InNS(pair.A, bin, "down", "--dev", "eth5")
		_ = exec.Command(argv[0], argv[1:]...).Run()
	})
	file := strings.Replace(cgroupConfig, "interfaces: [eth0]", `interfaces: ["eth*"]`, 1)
	a := e.start(clusterFile(t, file), t.TempDir())
	defer a.stop()
	for _, args := range [][]string{{"link", "set", "eth0", "down"}, {"link", "set", "eth0", "name", "eth5"},
		{"link", "set", "eth5", "up"}, {"link", "add", "eth0", "type", "veth", "peer", "name", "qjrtpeer"},
		{"link", "set", "eth0", "up"}} {
		must(t, testbed.InNS(pair.A, append([]string{"ip"}, args...)...)...)
	}
	waitFor(t, "QJump up on the new eth0", func() bool {
		v, _ := a.metric(`qjump_attached{interface="eth0"}`)
		return v == 1
	})
	for _, dev := range []string{"eth0", "eth5"} {
		if st := status(t, bin, pair.A, dev); st.Device != dev || !st.Attached || !st.EgressTree {
			t.Errorf("%s: status %+v, want QJump of its own attached, its egress tree on", dev, st)
		}
	}
	a.waitReady(2 * time.Second)
}
