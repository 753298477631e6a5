package agent

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
)

// TestReadinessOfANameARenamedOneLeft: eth0, which the agent runs QJump on, is renamed eth5 and a
// new eth0 comes before the agent looks at it. /readyz must say the new eth0 is not ready: the
// state under its name is eth5's. It said ok, finding that state attached (review, helper-85).
// The next look brings QJump up on the new eth0, and eth5 keeps its own.
func TestReadinessOfANameARenamedOneLeft(t *testing.T) {
	renamedAndTaken(t, "qjagrr", 95, "eth5", func(a *Agent, log *bytes.Buffer) {
		if err := a.readiness(); err == nil {
			t.Errorf("ready with eth0 a new interface and the state under its name eth5's")
		}
		a.reconcileAll()
		if err := a.readiness(); err != nil {
			t.Errorf("after the agent looked at every interface: %v\n%s", err, log)
		}
	})
}

// renamedAndTaken runs then in the first namespace of a pair (agentInNS) where an agent of
// interfaces ["eth*"] brought QJump up on eth0, which was renamed since to renamed, and a new eth0
// made (renameAndReplace). The test's end takes QJump off renamed.
func renamedAndTaken(t *testing.T, name string, subnet int, renamed string, then func(*Agent, *bytes.Buffer)) {
	t.Helper()
	a, pair, log := agentInNS(t, name, subnet, "hosts: 2\nrate: 100M\nfactors: {7: 1, 0: unlimited}\nagent:\n  interfaces: [\"eth*\"]\n")
	t.Cleanup(func() { _ = host.InNetns(pair.A, func() { _ = dataplane.Down(renamed) }) })
	if nsErr := host.InNetns(pair.A, func() {
		if !a.reconcile("eth0") {
			t.Errorf("bringing eth0 up failed:\n%s", log)
			return
		}
		if err := renameAndReplace("eth0", renamed); err != nil {
			t.Error(err)
			return
		}
		then(a, log)
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

// TestRenamedAwayAndNameTaken: eth0, which the agent runs QJump on, is renamed to a name the file
// does not match (ar-foo) and a new eth0 comes before the agent looks (ip -batch, or the agent
// stopped meanwhile). QJump must come off ar-foo, as it does when no interface takes the name,
// and the new eth0 get its own. ar-foo kept QJump for good, managed by nothing (review, helper-94).
func TestRenamedAwayAndNameTaken(t *testing.T) {
	renamedAndTaken(t, "qjagra", 97, "ar-foo", func(a *Agent, log *bytes.Buffer) {
		a.reconcileAll()
		if st, err := dataplane.DeviceStatus("ar-foo"); !errors.Is(err, dataplane.ErrNotUp) {
			t.Errorf("ar-foo, renamed to a name the file does not match: status %+v, %v; want QJump taken off\n%s", st, err, log)
		}
		if st, err := dataplane.DeviceStatus("eth0"); err != nil || st.Device != "eth0" || !st.Attached {
			t.Errorf("the new eth0: status %+v, %v; want QJump of its own attached\n%s", st, err, log)
		}
		if err := a.readiness(); err != nil {
			t.Errorf("not ready: %v", err)
		}
	})
}

// TestSwappedNamesAreFollowed: two interfaces the agent runs QJump on swap names (eth0 to a
// temporary name, ar-eth1 to eth0, the temporary one to ar-eth1). Each keeps its QJump, adopted
// as it runs: no apply error, no moment unlimited. The agent tore down the state under eth0's name,
// the swapped interface's, and failed to build the new eth0's: "add htb qdisc: invalid argument",
// an apply error counted (review, helper-94).
func TestSwappedNamesAreFollowed(t *testing.T) {
	a, pair, log := agentInNS(t, "qjagsw", 98, "hosts: 2\nrate: 100M\nfactors: {7: 1, 0: unlimited}\nagent:\n  interfaces: [eth0, ar-eth1]\n")
	t.Cleanup(func() { _ = host.InNetns(pair.A, func() { _ = dataplane.Down("ar-eth1") }) })
	if nsErr := host.InNetns(pair.A, func() {
		if err := netlink.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "ar-eth1"}, PeerName: "ar-peer1"}); err != nil {
			t.Error(err)
			return
		}
		for _, dev := range []string{"ar-eth1", "ar-peer1"} {
			if l, err := netlink.LinkByName(dev); err != nil || netlink.LinkSetUp(l) != nil {
				t.Errorf("%s: %v", dev, err)
				return
			}
		}
		a.reconcileAll()
		e0, err0 := netlink.LinkByName("eth0")
		e1, err1 := netlink.LinkByName("ar-eth1")
		if err := errors.Join(err0, err1); err != nil {
			t.Error(err)
			return
		}
		if err := errors.Join(netlink.LinkSetDown(e0), netlink.LinkSetDown(e1), netlink.LinkSetName(e0, "ar-tmp"),
			netlink.LinkSetName(e1, "eth0"), netlink.LinkSetName(e0, "ar-eth1"), netlink.LinkSetUp(e0), netlink.LinkSetUp(e1)); err != nil {
			t.Error(err)
			return
		}
		ups := promtestutil.ToFloat64(a.m.applied.WithLabelValues(string(Brought)))
		a.reconcileAll()
		if n := promtestutil.ToFloat64(a.m.applyErrors.WithLabelValues("up")); n != 0 || strings.Contains(log.String(), "level=ERROR") {
			t.Errorf("%v up errors after the swap:\n%s", n, log)
		}
		if n := promtestutil.ToFloat64(a.m.applied.WithLabelValues(string(Brought))); n != ups {
			t.Errorf("QJump brought up again %v times after the swap, want none (each adopted as it runs):\n%s", n-ups, log)
		}
		for dev, index := range map[string]int{"eth0": e1.Attrs().Index, "ar-eth1": e0.Attrs().Index} {
			st, err := dataplane.DeviceStatus(dev)
			if err != nil || st.Device != dev || st.UpAs != "" || !st.Attached {
				t.Errorf("%s (index %d): status %+v, %v; want its own QJump attached under its name", dev, index, st, err)
			}
		}
	}); nsErr != nil {
		t.Fatal(nsErr)
	}
}
