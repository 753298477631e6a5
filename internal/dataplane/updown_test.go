package dataplane

import (
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// snapshot is everything up may touch on eth0 of ns, with the namespace's pins.
func (h *hosts) snapshot(t *testing.T, ns string) string {
	t.Helper()
	return testutil.DeviceSnapshot(t, ns, testutil.PinDir(t, ns))
}

// TestUpDownUpRestores: down leaves eth0 exactly as it was before up, for every hook and mode,
// also when someone else's clsact filter is there.
func TestUpDownUpRestores(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		foreign [][]string // tc commands run before up, whose result must survive
	}{
		{name: "police via tcx"},
		{name: "police via clsact", args: []string{"--attach", "clsact"}},
		{name: "shape via tcx", args: []string{"--mode", "shape"}},
		{name: "shape via clsact", args: []string{"--mode", "shape", "--attach", "clsact"}},
		{name: "clsact beside a foreign filter", args: []string{"--attach", "clsact"}, foreign: [][]string{
			{"qdisc", "add", "dev", "eth0", "clsact"},
			{"filter", "add", "dev", "eth0", "egress", "prio", "7", "u32", "match", "u32", "0", "0", "flowid", "1:1"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHosts(t)
			for _, args := range tc.foreign {
				if _, errOut, code := testutil.Run(t, nil, "ip", append([]string{"netns", "exec", h.a, "tc"}, args...)...); code != 0 {
					t.Fatalf("tc %s: %s", strings.Join(args, " "), errOut)
				}
			}
			before := h.snapshot(t, h.a)
			for round := 1; round <= 2; round++ {
				h.mustQjump(t, h.a, upArgs(tc.args...)...)
				if up := h.snapshot(t, h.a); up == before {
					t.Fatalf("round %d: up changed nothing visible:\n%s", round, up)
				}
				h.mustQjump(t, h.a, "down", "--dev", "eth0")
				if after := h.snapshot(t, h.a); after != before {
					t.Fatalf("round %d: down left eth0 different.\nbefore:\n%s\nafter:\n%s", round, before, after)
				}
			}
			// Down on a device that is not up is not an error.
			h.mustQjump(t, h.a, "down", "--dev", "eth0")
		})
	}
}

// TestDownAfterClsactDeletedByHand: `tc qdisc del dev eth0 clsact` takes QJump's filter with it.
// Down (and so up --replace, which the agent uses to put the hook back) then has no filter to
// delete and gives eth0 back as it was; it used to fail on the kernel's EINVAL for a filter of a
// qdisc that is not there, and left the state pinned.
func TestDownAfterClsactDeletedByHand(t *testing.T) {
	h := newHosts(t)
	before := h.snapshot(t, h.a)
	h.mustQjump(t, h.a, upArgs("--attach", "clsact")...)
	if _, errOut, code := testutil.Run(t, nil, "ip", "netns", "exec", h.a, "tc", "qdisc", "del", "dev", "eth0", "clsact"); code != 0 {
		t.Fatalf("tc qdisc del: %s", errOut)
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
	if after := h.snapshot(t, h.a); after != before {
		t.Errorf("down left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
