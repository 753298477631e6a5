package dataplane

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestAutoFallsBackToClsact plays a kernel without TCX: --attach auto must then use clsact, and
// --attach tcx must fail with ErrNotSupported and leave nothing behind.
func TestAutoFallsBackToClsact(t *testing.T) {
	h := newHosts(t)
	failTCX(t)
	before := h.snapshot(t, h.a)
	d := testConfig()
	testutil.InNetns(t, h.a, func() {
		_, err := Up(UpOptions{Device: "eth0", Config: d, Attach: AttachTCX})
		if err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("--attach tcx without TCX: %v, want not supported", err)
		}
	})
	if after := h.snapshot(t, h.a); after != before {
		t.Fatalf("failed up left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
	}
	testutil.InNetns(t, h.a, func() {
		if _, err := Up(UpOptions{Device: "eth0", Config: d}); err != nil {
			t.Fatalf("--attach auto without TCX: %v", err)
		}
		st, err := DeviceStatus("eth0")
		if err != nil || st.Attach != AttachClsact || !st.Attached {
			t.Errorf("status %+v, %v; want attached via clsact", st, err)
		}
		if err := Down("eth0"); err != nil {
			t.Fatal(err)
		}
	})
	if after := h.snapshot(t, h.a); after != before {
		t.Fatalf("down left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// failTCX plays a kernel that refuses TCX links from now until the test ends.
func failTCX(t *testing.T) {
	orig := tcxAttacher
	tcxAttacher = func(paths, int, *ebpf.Program) error { return fmt.Errorf("attach tcx link: %w", ebpf.ErrNotSupported) }
	t.Cleanup(func() { tcxAttacher = orig })
}
