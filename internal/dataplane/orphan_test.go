package dataplane

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestOrphanAfterLostState: QJump's state removed from bpffs under a running QJump (rm -rf of its
// pins) leaves its egress tree on the device, and through clsact its program too. status names
// them, status --dev and up refuse with what to do, and down (or up --replace) removes them and
// gives the device back its kernel default, as it was before up here.
func TestOrphanAfterLostState(t *testing.T) {
	for _, attach := range []string{"tcx", "clsact"} {
		t.Run(attach, func(t *testing.T) {
			h := newHosts(t)
			tc := func(args ...string) string {
				t.Helper()
				out, err := exec.Command("tc", append([]string{"-n", h.a}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("tc %v: %v: %s", args, err, out)
				}
				return string(out)
			}
			root := func() string { return tc("qdisc", "show", "dev", "eth0", "root") }
			before := root()
			h.mustQjump(t, h.a, upArgs("--attach", attach)...)
			var p paths
			var err error
			if nerr := host.InNetns(h.a, func() { p, err = pathsFor("eth0") }); nerr != nil || err != nil {
				t.Fatal(nerr, err)
			}
			if err := os.RemoveAll(p.device); err != nil {
				t.Fatal(err)
			}

			want := "eth0 has QJump's egress tree (htb 514a:)"
			if attach == "clsact" {
				want += " and QJump's program (cls_bpf filter on clsact egress)"
			}
			s := testutil.DecodeStatus(t, []byte(h.mustQjump(t, h.a, "status", "--json")))
			if len(s.Devices) != 0 || len(s.LeftOver) != 1 || !strings.HasPrefix(s.LeftOver[0], want) {
				t.Fatalf("status after the state was removed: devices %+v, left over %q; want none, and one starting %q", s.Devices, s.LeftOver, want)
			}
			if _, errOut, code := h.qjump(t, h.a, "status", "--dev", "eth0"); code != 1 || !strings.Contains(errOut, "qjump down --dev eth0 removes it") {
				t.Errorf("status --dev eth0: exit %d, %q; want 1 and how to remove it", code, errOut)
			}
			if _, errOut, code := h.qjump(t, h.a, upArgs()...); code != 1 || !strings.Contains(errOut, "left over") || !strings.Contains(errOut, "--replace") {
				t.Errorf("up over the remains: exit %d, %q; want 1, left over, --replace", code, errOut)
			}

			if attach == "tcx" {
				h.mustQjump(t, h.a, upArgs("--replace")...)
				h.mustQjump(t, h.a, "down", "--dev", "eth0")
			} else if _, errOut, code := h.qjump(t, h.a, "down", "--dev", "eth0"); code != 0 || !strings.Contains(errOut, "removed it") {
				t.Errorf("down over the remains: exit %d, %q; want 0 and that it removed them", code, errOut)
			}
			if after := root(); after != before {
				t.Errorf("root qdisc after down: %q, want %q as before up", after, before)
			}
			if f := tc("filter", "show", "dev", "eth0", "egress"); f != "" {
				t.Errorf("egress filters after down: %q, want none", f)
			}
			if s := testutil.DecodeStatus(t, []byte(h.mustQjump(t, h.a, "status", "--json"))); len(s.Devices)+len(s.LeftOver) != 0 {
				t.Errorf("status after down: %+v; want nothing", s)
			}
		})
	}
}
