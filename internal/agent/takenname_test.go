package agent

import (
	"testing"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
)

// TestReadinessOfANameARenamedOneLeft: eth0, which the agent runs QJump on, is renamed eth5 and a
// new eth0 comes before the agent looks at it. /readyz must say the new eth0 is not ready: the
// state under its name is eth5's. It said ok, finding that state attached (review, helper-85).
// The next look brings QJump up on the new eth0, and eth5 keeps its own.
func TestReadinessOfANameARenamedOneLeft(t *testing.T) {
	a, pair, log := agentInNS(t, "qjagrr", 95, "hosts: 2\nrate: 100M\nfactors: {7: 1, 0: unlimited}\nagent:\n  interfaces: [\"eth*\"]\n")
	t.Cleanup(func() { _ = host.InNetns(pair.A, func() { _ = dataplane.Down("eth5") }) })
	if nsErr := host.InNetns(pair.A, func() {
		if !a.reconcile("eth0") {
			t.Errorf("bringing eth0 up failed:\n%s", log)
			return
		}
		if err := renameAndReplace("eth0", "eth5"); err != nil {
			t.Error(err)
			return
		}
		if err := a.readiness(); err == nil {
			t.Errorf("ready with eth0 a new interface and the state under its name eth5's")
		}
		a.reconcileAll()
		if err := a.readiness(); err != nil {
			t.Errorf("after the agent looked at every interface: %v\n%s", err, log)
		}
	}); nsErr != nil {
		t.Fatal(nsErr)
	}
}

// renameAndReplace renames the interface old to renamed and makes a new veth called old, both up.
func renameAndReplace(old, renamed string) error {
	l, err := netlink.LinkByName(old)
	if err != nil {
		return err
	}
	for _, step := range []func() error{
		func() error { return netlink.LinkSetDown(l) },
		func() error { return netlink.LinkSetName(l, renamed) },
		func() error { return netlink.LinkSetUp(l) },
		func() error {
			return netlink.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: old}, PeerName: "qjrrpeer"})
		},
	} {
		if err := step(); err != nil {
			return err
		}
	}
	n, err := netlink.LinkByName(old)
	if err != nil {
		return err
	}
	return netlink.LinkSetUp(n)
}
