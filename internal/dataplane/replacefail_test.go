package dataplane

import (
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/testutil"
)

// otherConfig is testConfig at another rate: a configuration a replace can be told apart by.
func otherConfig() config.Dataplane {
	d := testConfig()
	d.Model.Rate = 2000
	return d
}

// TestFailedReplacePutsBack: an up with Replace that fails after it has taken the running QJump
// down puts that one back, on its hook, exactly as it ran; it used to leave the device unlimited.
func TestFailedReplacePutsBack(t *testing.T) {
	h := newHosts(t)
	old := testConfig()
	testutil.InNetns(t, h.a, func() {
		if _, err := Up(UpOptions{Device: "eth0", Config: old, Attach: AttachClsact}); err != nil {
			t.Fatal(err)
		}
	})
	running := h.snapshot(t, h.a)
	failTCX(t)
	testutil.InNetns(t, h.a, func() {
		prev, err := Up(UpOptions{Device: "eth0", Config: otherConfig(), Attach: AttachTCX, Replace: true})
		if !errors.Is(err, ErrPutBack) || !errors.Is(err, ebpf.ErrNotSupported) || prev != nil {
			t.Fatalf("replace refused by the kernel: %v (previous %v), want the refusal and ErrPutBack, no previous", err, prev)
		}
		st, err := DeviceStatus("eth0")
		if err != nil || !st.Attached || st.Attach != AttachClsact || !sameHash(st.Config, old) {
			t.Fatalf("after the failed replace: %+v, %v; want the old configuration attached via clsact", st, err)
		}
	})
	if after := h.snapshot(t, h.a); after != running {
		t.Fatalf("the configuration put back differs.\nbefore the replace:\n%s\nafter:\n%s", running, after)
	}
}

// TestFailedReplaceThatCannotPutBack: when the old configuration's hook is refused too, the error
// says that QJump is not up, and the device is left as it was before QJump: nothing half-made.
func TestFailedReplaceThatCannotPutBack(t *testing.T) {
	h := newHosts(t)
	before := h.snapshot(t, h.a)
	testutil.InNetns(t, h.a, func() {
		if _, err := Up(UpOptions{Device: "eth0", Config: testConfig(), Attach: AttachTCX}); err != nil {
			t.Fatal(err)
		}
	})
	failTCX(t)
	testutil.InNetns(t, h.a, func() {
		_, err := Up(UpOptions{Device: "eth0", Config: otherConfig(), Attach: AttachTCX, Replace: true})
		if err == nil || errors.Is(err, ErrPutBack) || !strings.Contains(err.Error(), "so QJump is not up on eth0") {
			t.Fatalf("replace and put-back both refused: %v, want an error saying QJump is not up", err)
		}
		if _, err := DeviceStatus("eth0"); !errors.Is(err, ErrNotUp) {
			t.Errorf("status after both failed: %v, want ErrNotUp", err)
		}
	})
	if after := h.snapshot(t, h.a); after != before {
		t.Fatalf("eth0 is not as before QJump.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestPutBackRestoresPrevious: PutBack, the undo of a successful replace, brings back what Up
// returned, on its hook.
func TestPutBackRestoresPrevious(t *testing.T) {
	h := newHosts(t)
	old := testConfig()
	testutil.InNetns(t, h.a, func() {
		if prev, err := Up(UpOptions{Device: "eth0", Config: old, Attach: AttachClsact}); err != nil || prev != nil {
			t.Fatalf("first up: previous %v, %v; want none", prev, err)
		}
	})
	running := h.snapshot(t, h.a)
	testutil.InNetns(t, h.a, func() {
		prev, err := Up(UpOptions{Device: "eth0", Config: otherConfig(), Attach: AttachTCX, Replace: true})
		if err != nil || prev == nil || prev.Attach != AttachClsact || !sameHash(prev.Config, old) {
			t.Fatalf("replace: previous %+v, %v; want the first configuration on clsact", prev, err)
		}
		if err := PutBack("eth0", *prev); err != nil {
			t.Fatal(err)
		}
	})
	if after := h.snapshot(t, h.a); after != running {
		t.Fatalf("PutBack differs from the first up.\nthen:\n%s\nnow:\n%s", running, after)
	}
}

func sameHash(a, b config.Dataplane) bool {
	return config.Hash(a) == config.Hash(b)
}
