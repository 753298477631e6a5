package dataplane

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	ip := ipIn(t, h.a)
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

// TestSwappedDevicesAreFollowed: two interfaces QJump is up on swap names (ip -batch: eth0 to
// ar-tmp, ar-eth1 to eth0, ar-tmp to ar-eth1). Each state must move to its interface's new name,
// so that down of one name takes QJump off that interface only. The moves were skipped, each new
// name having state already, and a later up or down of either name met the other's state: the
// agent tore down the swapped one's and failed to build its own (review, helper-94).
func TestSwappedDevicesAreFollowed(t *testing.T) {
	h := newHosts(t)
	ip := ipIn(t, h.a)
	ip("link", "add", "ar-eth1", "type", "veth", "peer", "name", "ar-peer1")
	ip("link", "set", "ar-eth1", "up")
	h.mustQjump(t, h.a, upArgs()...)
	h.mustQjump(t, h.a, append([]string{"up", "--dev", "ar-eth1"}, testModel...)...)
	t.Cleanup(func() { _, _, _ = h.qjump(t, h.a, "down", "--dev", "ar-eth1") })
	batch := filepath.Join(t.TempDir(), "swap")
	if err := os.WriteFile(batch, []byte("link set eth0 down\nlink set ar-eth1 down\nlink set eth0 name ar-tmp\n"+
		"link set ar-eth1 name eth0\nlink set ar-tmp name ar-eth1\nlink set eth0 up\nlink set ar-eth1 up\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ip("-batch", batch)

	// Any verb follows renames first; this up finds eth0 up.
	if _, errOut, code := h.qjump(t, h.a, upArgs()...); code != 1 || !strings.Contains(errOut, "already up on eth0") {
		t.Errorf("up --dev eth0 after the swap: exit %d, %q; want 1, already up", code, errOut)
	}
	names := func(s testutil.Status) (out []string) {
		for _, d := range s.Devices {
			out = append(out, fmt.Sprintf("%s (up as %q, attached %v)", d.Device, d.UpAs, d.Attached))
		}
		return out
	}
	s := h.status(t, h.a)
	if len(s.Devices) != 2 || s.Devices[0].Device != "ar-eth1" || s.Devices[1].Device != "eth0" ||
		s.Devices[0].UpAs != "" || s.Devices[1].UpAs != "" || !s.Devices[0].Attached || !s.Devices[1].Attached {
		t.Fatalf("status after the swap was followed: %+v; want ar-eth1 and eth0, each under its own name, attached", names(s))
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
	if s := h.status(t, h.a); len(s.Devices) != 1 || s.Devices[0].Device != "ar-eth1" || !s.Devices[0].Attached {
		t.Errorf("status after down --dev eth0: %+v; want ar-eth1 alone, attached", names(s))
	}
}

// ipIn runs ip in the network namespace ns, failing t on an error.
func ipIn(t *testing.T, ns string) func(args ...string) {
	return func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
}

// TestRenameOntoDebrisIsFollowed: a name whose state directory holds no record (what a killed
// down leaves) is free: a device renamed to it takes its state there, and up finds it up. The
// directory kept the live state out, and up on the new name took the live tree for an orphan
// (review, helper-102).
func TestRenameOntoDebrisIsFollowed(t *testing.T) {
	renamedAfter(t, "over a directory without a record", func(p paths) error {
		return os.Mkdir(p.forDevice("eth9").device, 0o755)
	})
}

// TestStateLeftMovingIsMovedOn: a followRenames killed between its two steps leaves a state under
// NEW:moving. The next one moves it on to NEW: Go's os.Rename of a directory to itself fails,
// and the state stayed at NEW:moving for good, up on NEW taking the live device for an orphan
// (review, helper-103).
func TestStateLeftMovingIsMovedOn(t *testing.T) {
	renamedAfter(t, "with its state left at eth9"+movingSuffix, func(p paths) error {
		return os.Rename(p.device, p.forDevice("eth9"+movingSuffix).device)
	})
}

// renamedAfter brings QJump up on eth0, does what to eth0's state paths p, renames eth0 to eth9,
// and checks that up on eth9 finds QJump up there and down takes it off.
func renamedAfter(t *testing.T, what string, do func(p paths) error) {
	t.Helper()
	h := newHosts(t)
	ip := ipIn(t, h.a)
	h.mustQjump(t, h.a, upArgs()...)
	testutil.InNetns(t, h.a, func() {
		p, err := pathsFor("eth0")
		if err == nil {
			err = do(p)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	ip("link", "set", "eth0", "down")
	ip("link", "set", "eth0", "name", "eth9")
	ip("link", "set", "eth9", "up")
	t.Cleanup(func() { _, _, _ = h.qjump(t, h.a, "down", "--dev", "eth9") })
	_, errOut, code := h.qjump(t, h.a, append([]string{"up", "--dev", "eth9"}, testModel...)...)
	if code != 1 || !strings.Contains(errOut, "already up on eth9") {
		t.Errorf("up --dev eth9 after eth0 became eth9 %s: exit %d, %q; want 1, already up", what, code, errOut)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth9")
	if s := h.status(t, h.a); len(s.Devices) != 0 {
		t.Errorf("status after down: %+v; want nothing up", s.Devices)
	}
}
