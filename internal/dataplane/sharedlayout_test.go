package dataplane

import (
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/testutil"
)

// qjump assign and unassign write and read the cgroup ceilings' maps that every program shares.
// A map another build pinned with another layout of the same size would take this build's
// ceilings as something else (the running programs then enforce none, or the wrong one): it is
// refused, saying how it differs and how to get out. A map of this build's layout is used.
func TestCeilingsOfAnotherBuildsLayoutRefused(t *testing.T) {
	testutil.RequirePriv(t, "pinning maps in bpffs")
	root, err := os.MkdirTemp("/sys/fs/bpf", "qjump-test-")
	if err != nil {
		t.Skipf("no bpffs to pin in: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	p := paths{root: root}

	other, err := ebpf.NewMap(movedFields(t, qjumpMapCgroupCeilings, "level", "depth"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Pin(p.shared(qjumpMapCgroupCeilings)); err != nil {
		t.Fatal(err)
	}
	_, err = openShared(p, qjumpMapCgroupCeilings, true)
	for _, want := range []string{"pinned by another qjump build", "member level at offset 0, was 1", "remove " + p.shared(qjumpMapCgroupCeilings)} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("opening ceilings of another layout: %v; want a refusal saying %q", err, want)
		}
	}

	_ = os.Remove(p.shared(qjumpMapCgroupCeilings))
	m, err := openShared(p, qjumpMapCgroupCeilings, true) // made and pinned by this build
	if err != nil {
		t.Fatalf("creating this build's ceilings: %v", err)
	}
	m.Close()
	m, err = openShared(p, qjumpMapCgroupCeilings, false)
	if err != nil {
		t.Fatalf("opening this build's pinned ceilings: %v", err)
	}
	m.Close()
}
