package dataplane

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestRenamedDeviceIsFollowed: an interface renamed while QJump is up on it (eth0 -> eth9) keeps
// its program, and the verbs follow it: status shows it under its new name, up on the new name
// finds it up, another interface can take the old name and get QJump of its own, and down on the
// new name puts the renamed device back as it was.
func TestRenamedDeviceIsFollowed(t *testing.T) {
	h := newHosts(t)
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", append([]string{"-n", h.a}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	qdiscs := func(dev string) string {
		t.Helper()
		out, err := exec.Command("tc", "-n", h.a, "qdisc", "show", "dev", dev).CombinedOutput()
		if err != nil {
			t.Fatalf("tc qdisc show dev %s: %v: %s", dev, err, out)
		}
		return string(out)
	}
	before := qdiscs("eth0")
	h.mustQjump(t, h.a, upArgs()...)
	ip("link", "set", "eth0", "down")
	ip("link", "set", "eth0", "name", "eth9")
	ip("link", "set", "eth9", "up")
	t.Cleanup(func() { _, _, _ = h.qjump(t, h.a, "down", "--dev", "eth9") })

	if s := h.status(t, h.a); len(s.Devices) != 1 || s.Devices[0].Device != "eth9" || s.Devices[0].UpAs != "eth0" || !s.Devices[0].Attached {
		t.Fatalf("status after eth0 became eth9: %+v; want eth9, up as eth0, attached", s.Devices)
	}
	_, errOut, code := h.qjump(t, h.a, append([]string{"up", "--dev", "eth9"}, testModel...)...)
	if code != 1 || !strings.Contains(errOut, "already up on eth9") {
		t.Errorf("up --dev eth9: exit %d, %q; want 1, already up", code, errOut)
	}

	// The old name for a new interface, with QJump of its own beside the renamed one's.
	ip("link", "add", "eth0", "type", "veth", "peer", "name", "peer0")
	ip("link", "set", "eth0", "up")
	h.mustQjump(t, h.a, upArgs()...)
	s := h.status(t, h.a)
	if len(s.Devices) != 2 || !s.Devices[0].Attached || !s.Devices[1].Attached || s.Devices[0].Device != "eth0" || s.Devices[1].Device != "eth9" {
		t.Fatalf("status with a new eth0 beside eth9: %+v; want both attached", s.Devices)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth9")
	if after := qdiscs("eth9"); after != before {
		t.Errorf("down --dev eth9 left it different.\nbefore (as eth0):\n%s\nafter:\n%s", before, after)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
	if s := h.status(t, h.a); len(s.Devices) != 0 {
		t.Errorf("status after both downs: %+v; want nothing up", s.Devices)
	}
}

// TestDownAfterARename: down given either name takes QJump off a renamed device, before any verb
// has moved its state to the new name: the name it had at up (the agent does this for an
// interface renamed out of its set), or the name it has now (what its user sees in ip link), which
// status also shows it under.
func TestDownAfterARename(t *testing.T) {
	for _, name := range []string{"eth0", "eth9"} {
		t.Run("down --dev "+name, func(t *testing.T) {
			h := newHosts(t)
			before, err := exec.Command("tc", "-n", h.a, "qdisc", "show", "dev", "eth0").CombinedOutput()
			if err != nil {
				t.Fatal(err)
			}
			h.mustQjump(t, h.a, upArgs()...)
			for _, args := range [][]string{{"link", "set", "eth0", "down"}, {"link", "set", "eth0", "name", "eth9"}, {"link", "set", "eth9", "up"}} {
				if out, err := exec.Command("ip", append([]string{"-n", h.a}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("ip %v: %v: %s", args, err, out)
				}
			}
			if name == "eth9" {
				s := testutil.DecodeStatus(t, []byte(h.mustQjump(t, h.a, "status", "--dev", "eth9", "--json")))
				if len(s.Devices) != 1 || s.Devices[0].Device != "eth9" || s.Devices[0].UpAs != "eth0" || !s.Devices[0].Attached {
					t.Fatalf("status --dev eth9 right after eth0 became eth9: %+v; want eth9, up as eth0, attached", s.Devices)
				}
			}
			h.mustQjump(t, h.a, "down", "--dev", name)
			if s := h.status(t, h.a); len(s.Devices) != 0 {
				t.Errorf("status after down --dev %s of the renamed eth9: %+v; want nothing up", name, s.Devices)
			}
			if after, _ := exec.Command("tc", "-n", h.a, "qdisc", "show", "dev", "eth9").CombinedOutput(); string(after) != string(before) {
				t.Errorf("eth9 after down.\nbefore (as eth0):\n%s\nafter:\n%s", before, after)
			}
		})
	}
}
