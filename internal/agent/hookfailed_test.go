package agent

import (
	"testing"

	"github.com/qjump-net/qjump/internal/host"
)

// TestGoneInterfaceLeavesNoHookFailure: the check finds the hook of an interface gone because the
// interface is, its link event not read yet. Putting it back finds no interface and takes it off
// the agent's (down); the check then marked it as a hook it failed to put back, an entry about an
// interface the agent no longer runs, left until the next resync.
func TestGoneInterfaceLeavesNoHookFailure(t *testing.T) {
	a, pair, log := agentInNS(t, "qjaghf", 90, "hosts: 2\nrate: 100M\nfactors: {7: 1, 0: unlimited}\nagent:\n  interfaces: [eth0]\n")
	if nsErr := host.InNetns(pair.A, func() {
		var err error
		if a.netns, err = host.NetnsKey(); err != nil {
			t.Error(err)
			return
		}
		if !a.reconcile("eth0") {
			t.Errorf("bringing eth0 up failed:\n%s", log)
			return
		}
		if _, err := deleteLink("eth0"); err != nil {
			t.Error(err)
			return
		}
		a.checkHooks(foundByCheck)
	}); nsErr != nil {
		t.Fatal(nsErr)
	}
	if _, ours := a.devices["eth0"]; ours {
		t.Errorf("the agent still runs the deleted eth0:\n%s", log)
	}
	if len(a.hookFailed) != 0 {
		t.Errorf("hook failures after eth0 went: %v, want none: the interface is not the agent's any more", a.hookFailed)
	}
}
