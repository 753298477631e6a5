package dataplane

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testutil"
)

// testModel has an epoch of 10 ms (m·n·P·8/R = 2·100·1500·8/240M) and budgets of 30 kB per epoch
// (24 Mb/s) at levels 7 and 5; everything else is unlimited. R is ten times a level's rate, so the
// root of QJump's egress tree, which caps the device at R, never holds what a budget lets through.
var testModel = []string{"--hosts", "100", "--rate", "240M", "--packet", "1500B", "--factors", "7=20,5=20,0=unlimited"}

const (
	testEpoch  = 10 * time.Millisecond
	testBudget = 30000
	testRate   = testBudget * 8 / 0.010 // bit/s
)

func upArgs(extra ...string) []string {
	return append(append([]string{"up", "--dev", "eth0"}, testModel...), extra...)
}

func (h *hosts) status(t *testing.T, ns string) testutil.Status {
	t.Helper()
	return testutil.DecodeStatus(t, []byte(h.mustQjump(t, ns, "status", "--json")))
}

// TestIPNetnsExecUpSurvives is the ip-netns-exec trap: the command runs in a private mount
// namespace that hides /sys/fs/bpf, yet QJump must stay attached after it exits and a later
// `ip netns exec ... status` must find it.
func TestIPNetnsExecUpSurvives(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	s := h.status(t, h.a)
	if len(s.Devices) != 1 || !s.Devices[0].Attached || s.Devices[0].Device != "eth0" {
		t.Fatalf("status after up: %+v", s)
	}
	// Still enforcing after the up process is gone: traffic is counted at its level.
	c := dialUDP(t, h.a, h.addrB, 5001, 5)
	_ = listenUDP(t, h.b, h.addrB, 5001)
	send(c, sendOptions{payload: 958, until: time.Now().Add(100 * time.Millisecond), cpu: -1})
	s = h.status(t, h.a)
	if l5 := s.Devices[0].Level(t, 5); l5.SentPackets == 0 || l5.DroppedPackets == 0 {
		t.Fatalf("level 5 after traffic: %+v (want sent and dropped)", l5)
	}
}

// TestSameNameInTwoNamespaces: both hosts have eth0; their state never mixes.
func TestSameNameInTwoNamespaces(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs("--mode", "police")...)
	if s := h.status(t, h.b); len(s.Devices) != 0 {
		t.Fatalf("host b sees host a's QJump: %+v", s)
	}
	h.mustQjump(t, h.b, upArgs("--attach", "clsact")...)
	if s := h.status(t, h.b); len(s.Devices) != 1 || s.Devices[0].Attach != "clsact" {
		t.Fatalf("host b: %+v", s)
	}
	h.mustQjump(t, h.b, "down", "--dev", "eth0")
	if s := h.status(t, h.a); len(s.Devices) != 1 || s.Devices[0].Attach != "tcx" || !s.Devices[0].Attached {
		t.Fatalf("host a after host b went down: %+v", s)
	}
}

// TestUpTwiceChangesNothing: a second up says so and leaves the running configuration.
func TestUpTwiceChangesNothing(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	_, errOut, code := h.qjump(t, h.a, "up", "--dev", "eth0", "--hosts", "3", "--rate", "1G")
	if code != 1 || !strings.Contains(errOut, "already up") {
		t.Fatalf("second up: exit %d, %q; want exit 1 saying already up", code, errOut)
	}
	if s := h.status(t, h.a); s.Devices[0].EpochNs != testEpoch.Nanoseconds() || s.Devices[0].Generation != 1 {
		t.Fatalf("second up changed the device: %+v", s.Devices[0])
	}
	h.mustQjump(t, h.a, "up", "--dev", "eth0", "--hosts", "3", "--rate", "1G", "--replace")
	if s := h.status(t, h.a); s.Devices[0].EpochNs == testEpoch.Nanoseconds() {
		t.Fatalf("--replace kept the old configuration: %+v", s.Devices[0])
	}
}

// TestActiveConfigs: the app utility reads the running configuration of the devices (their
// budgets) in the caller's network namespace.
func TestActiveConfigs(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs("--mark", "pcp", "--default-level", "3")...)
	var budget int64
	var ok bool
	testutil.InNetns(t, h.a, func() {
		all, err := ActiveConfigs()
		if err != nil || len(all) != 1 || all[0].Device != "eth0" {
			t.Fatalf("active configs %+v, %v; want eth0's", all, err)
		}
		d := all[0].Config
		if d.Mark != "pcp" || d.DefaultLevel != 3 {
			t.Errorf("active config %+v", d)
		}
		b, limited := d.Model.Budget(d.Model.Factors[5])
		budget, ok = int64(b), limited
	})
	if !ok || budget != testBudget {
		t.Errorf("level 5 budget %d (limited %v), want %d", budget, ok, testBudget)
	}
	testutil.InNetns(t, h.b, func() {
		if all, err := ActiveConfigs(); len(all) != 0 || err != nil {
			t.Errorf("host b: %+v, %v; want nothing up", all, err)
		}
	})
}

// TestDeletedNamespaceIsPruned: a namespace deleted without `qjump down` leaves only pins behind;
// the next up anywhere removes them.
func TestDeletedNamespaceIsPruned(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	dir := testutil.PinDir(t, h.a)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("no state for %s after up: %v", h.a, err)
	}
	if out, err := exec.Command("ip", "netns", "del", h.a).CombinedOutput(); err != nil {
		t.Fatalf("delete %s: %v %s", h.a, err, out)
	}
	// The kernel frees a namespace asynchronously; the link turns defunct when it does.
	other := newHosts(t)
	testutil.WaitFor(t, 3*time.Second, dir+" to go after its namespace was deleted and up ran", func() bool {
		other.mustQjump(t, other.a, upArgs("--replace")...)
		_, err := os.Stat(dir)
		return os.IsNotExist(err)
	})
}
