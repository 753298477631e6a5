package agent

import (
	"strings"
	"testing"

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
	}); nsErr != nil {
		t.Fatal(nsErr)
	}
	if !strings.Contains(log.String(), `msg="config warning"`) || !strings.Contains(log.String(), "interface=eth0") {
		t.Errorf("the warning is not a config warning naming eth0:\n%s", log)
	}
}
