package agent

import (
	"strings"
	"testing"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/host"
)

// TestPoliceWarningIsLogged: in police mode TCP's GSO packets (up to 64 kB on a veth) are larger
// than a limited level's budget, and dropped. `qjump up` warns of it; the agent said nothing. It
// logs the warning of each interface at start and at each edit of the file, not at every resync
// (review, helper-85).
func TestPoliceWarningIsLogged(t *testing.T) {
	const file = "hosts: 2\nrate: 100M\nfactors: {7: 1, 0: unlimited}\nagent:\n  interfaces: [eth0]\n"
	a, pair, log := agentInNS(t, "qjagpw", 96, file)
	told := func() int { return strings.Count(log.String(), "TCP sends GSO packets") }
	if nsErr := host.InNetns(pair.A, func() {
		a.reconcileAll() // the start
		if n := told(); n != 1 {
			t.Errorf("at start: the GSO warning logged %d times, want once:\n%s", n, log)
		}
		a.reconcileAll() // a resync
		if n := told(); n != 1 {
			t.Errorf("after a resync: the GSO warning logged %d times, want still once:\n%s", n, log)
		}
		a.onFile(fileChange{data: []byte(file + "# an edit\n")})
		if n := told(); n != 2 {
			t.Errorf("after an edit: the GSO warning logged %d times, want twice:\n%s", n, log)
		}
		// A smaller gso_max_size, still over the budget: the packets dropped are others, and the
		// link event that says so is told again; once the name alone keyed it, it was not.
		l, err := netlink.LinkByName("eth0")
		if err != nil {
			t.Fatal(err)
		}
		if err := netlink.LinkSetGSOMaxSize(l, 32768); err != nil {
			t.Fatal(err)
		}
		a.onLink(linkEvent{name: "eth0", index: l.Attrs().Index})
		if n := told(); n != 3 || !strings.Contains(log.String(), "up to 32768B") {
			t.Errorf("after gso_max_size 32768: the GSO warning logged %d times, want 3, the last naming 32768B:\n%s", n, log)
		}
		a.onLink(linkEvent{name: "eth0", index: l.Attrs().Index})
		if n := told(); n != 3 {
			t.Errorf("after a link event that changed nothing: the GSO warning logged %d times, want still 3:\n%s", n, log)
		}
	}); nsErr != nil {
		t.Fatal(nsErr)
	}
	if !strings.Contains(log.String(), `msg="config warning"`) || !strings.Contains(log.String(), "interface=eth0") {
		t.Errorf("the warning is not a config warning naming eth0:\n%s", log)
	}
}
