package agent

import (
	"strings"
	"testing"

	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
)

// TestAbsentCgroupIsNotAnError: the cluster file names a service that does not run on this host
// (every host gets the same file). Each sync looks for it again, and it is neither an apply error
// nor logged every time: one line says it is not here yet, and a gauge counts it.
func TestAbsentCgroupIsNotAnError(t *testing.T) {
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n" +
		"  cgroups:\n    - {path: system.slice/qjtest-absent.service, level: 5}\n"
	a, _, log, err := loggedAgent(t, "", file, Options{CgroupRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	a.cg = cgroups{applied: map[string]*assignment{}}
	for range 5 {
		a.syncCgroups()
	}
	if n := promtestutil.ToFloat64(a.m.applyErrors.WithLabelValues("assign")); n != 0 {
		t.Errorf("apply errors (assign) %v after 5 syncs with the cgroup absent, want 0", n)
	}
	if n := promtestutil.ToFloat64(a.m.absentCount); n != 1 {
		t.Errorf("qjump_agent_cgroups_absent %v, want 1", n)
	}
	if n := strings.Count(log.String(), "not on this host"); n != 1 || strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the log over 5 syncs says \"not on this host\" %d times (want 1), errors %v:\n%s",
			n, strings.Contains(log.String(), "level=ERROR"), log.String())
	}
}

// TestAbsentNamedInterfaceIsLogged: the file names an interface (not a pattern) this host lacks.
// /readyz said so and nothing else did, which under systemd nothing watches: the log says so at
// start and at each edit of the file, not at every resync (review, helper-85).
func TestAbsentNamedInterfaceIsLogged(t *testing.T) {
	// Nothing on the test's host matches: looking at every interface touches none of its own.
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [qjtest-nic9, \"qjtest-none*\"]\n"
	a, _, log, err := loggedAgent(t, "", file, Options{CgroupRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	a.cg = cgroups{applied: map[string]*assignment{}}
	told := func() int {
		return strings.Count(log.String(), "interface named in agent.interfaces is not on this host")
	}
	steps := []struct {
		what string
		do   func()
		want int
	}{
		{"at start", a.reconcileAll, 1},
		{"at a resync", a.reconcileAll, 1},
		{"at an edit", func() { a.onFile(fileChange{data: []byte(file + "# an edit\n")}) }, 2},
	}
	for _, s := range steps {
		s.do()
		if n := told(); n != s.want {
			t.Errorf("%s: qjtest-nic9 logged absent %d times in all, want %d:\n%s", s.what, n, s.want, log)
		}
	}
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "interface=qjtest-nic9") {
		t.Errorf("not a warning naming qjtest-nic9:\n%s", log)
	}
}

// TestNamedInterfaceGoneIsLoggedAtOnce: an interface the file names is deleted. The log says it is
// not on this host when it goes, as docs/deployment.md says, not only at the next resync, 30 s
// later: the delete went to down alone (review, helper-94). Once, not again at the resync; again
// if it comes back and goes again.
func TestNamedInterfaceGoneIsLoggedAtOnce(t *testing.T) {
	a, pair, log := agentInNS(t, "qjagng", 99, "hosts: 2\nrate: 100M\nagent:\n  interfaces: [eth0, ar-nic1]\n")
	told := func() int {
		return strings.Count(log.String(), "interface named in agent.interfaces is not on this host")
	}
	t.Cleanup(func() { _ = host.InNetns(pair.A, func() { _ = dataplane.Down("ar-nic1") }) })
	veth := func() *netlink.Veth {
		return &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "ar-nic1"}, PeerName: "ar-peer1"}
	}
	if nsErr := host.InNetns(pair.A, func() {
		if err := netlink.LinkAdd(veth()); err != nil {
			t.Error(err)
			return
		}
		a.reconcileAll()
		for i, want := range []int{1, 2} {
			l, err := deleteLink("ar-nic1")
			if err != nil {
				t.Error(err)
				return
			}
			a.onLink(linkEvent{name: "ar-nic1", index: l.Attrs().Index, deleted: true})
			if n := told(); n != want {
				t.Errorf("ar-nic1 deleted (%d): logged absent %d times in all, want %d:\n%s", i+1, n, want, log)
			}
			a.reconcileAll()
			if n := told(); n != want {
				t.Errorf("the resync after: logged absent %d times in all, want %d:\n%s", n, want, log)
			}
			if err := netlink.LinkAdd(veth()); err != nil {
				t.Error(err)
				return
			}
			a.onLink(linkEvent{name: "ar-nic1"})
		}
	}); nsErr != nil {
		t.Fatal(nsErr)
	}
}
