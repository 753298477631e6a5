package nspair_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

func netnsExists(ns string) bool {
	_, err := os.Stat(filepath.Join("/run/netns", ns))
	return err == nil
}

// A pair whose maker died (as a test binary that go test -timeout ends) is removed by the next
// sweep with its record; a pair whose maker runs is kept; Remove takes the record with the pair.
func TestSweepRemovesOnlyDeadMakersPairs(t *testing.T) {
	testutil.RequirePriv(t, "network namespace tests")
	k := os.Getpid() % 10000
	live, err := nspair.New(context.Background(), fmt.Sprintf("qjnsl%d", k), "198.18.251.1", "198.18.251.2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(live.Remove)

	// A pair made by a process that has exited since: a real child makes it, as the killed
	// process did, and leaves without removing it.
	dead := fmt.Sprintf("qjnsd%d", k)
	t.Cleanup(func() {
		(&nspair.Pair{A: dead + "a", B: dead + "b"}).Remove()
		_ = os.Remove(filepath.Join(nspair.OwnerDir, dead))
	})
	child := exec.Command("sh", "-c", fmt.Sprintf(
		"ip netns add %sa && ip netns add %sb && echo $$ > %s", dead, dead, filepath.Join(nspair.OwnerDir, dead)))
	if out, err := child.CombinedOutput(); err != nil {
		t.Fatalf("make the dead maker's pair: %v\n%s", err, out)
	}

	// Another test binary beside this one (go test without -p 1) may sweep the dead pair first:
	// either way it must be gone, and the live one must stay.
	if removed := nspair.SweepDead(); slices.Contains(removed, fmt.Sprintf("qjnsl%d", k)) {
		t.Errorf("the sweep removed %v, the live pair among them", removed)
	}
	if netnsExists(dead+"a") || netnsExists(dead+"b") {
		t.Errorf("the dead maker's namespaces are still there")
	}
	if _, err := os.Stat(filepath.Join(nspair.OwnerDir, dead)); err == nil {
		t.Errorf("the dead maker's record is still there")
	}
	if !netnsExists(live.A) || !netnsExists(live.B) {
		t.Fatalf("the sweep removed the pair of a live maker")
	}
	live.Remove()
	if netnsExists(live.A) || netnsExists(live.B) {
		t.Errorf("Remove left a namespace")
	}
	if _, err := os.Stat(filepath.Join(nspair.OwnerDir, fmt.Sprintf("qjnsl%d", k))); err == nil {
		t.Errorf("Remove left the pair's record")
	}
}
