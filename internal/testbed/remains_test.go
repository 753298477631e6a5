package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestRemainsOfAKilledMakerAreReplaced: a testbed whose maker died before it finished (its state
// still says it is being built, its lock free: as after SIGKILL, which runs no handler) is remains.
// The next Up removes and rebuilds it instead of refusing it as a testbed that is up; a finished
// one is refused, as before, and one whose remover died (its state says Removing) is replaced. (In package testbed: a killed maker is played by dropping the lock
// without Release, which tbtest's helpers cannot reach.)
func TestRemainsOfAKilledMakerAreReplaced(t *testing.T) {
	testutil.RequirePriv(t, "the namespace testbed")
	prefix := fmt.Sprintf("qjtt%04d", os.Getpid()%10000) // tbtest's stem: its sweep removes what a killed test leaves
	c := DefaultConfig(2)
	c.Prefix = prefix
	t.Cleanup(func() {
		lock, err := Acquire(prefix)
		_ = Cleanup(context.Background(), prefix)
		if err == nil {
			lock.Remove()
		}
	})

	tb, err := Up(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	tb.lock.Release() // the maker dies here, before Release
	s, err := ReadState(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if _, cond, err := s.Probe(); err != nil || cond != Killed {
		t.Fatalf("state after the maker died: %+v, condition %d, %v; want building, its maker killed", s, cond, err)
	}
	tb, err = Up(context.Background(), c)
	if err != nil {
		t.Fatalf("up over the remains of a killed maker: %v, want them replaced", err)
	}
	if err := tb.Release(); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadState(prefix); err != nil || s.Building {
		t.Fatalf("state after Release: %+v, %v; want finished", s, err)
	}
	if _, err := Up(context.Background(), c); !errors.Is(err, ErrBusy) {
		t.Fatalf("up over a finished testbed: %v, want ErrBusy", err)
	}

	// A remover killed part-way, before it removed any namespace: its record says Removing, and
	// the lock is free. What is there is remains, which Up replaces too.
	if err := markRemoving(prefix); err != nil {
		t.Fatal(err)
	}
	tb, err = Up(context.Background(), c)
	if err != nil {
		t.Fatalf("up over the remains of a killed remover: %v, want them replaced", err)
	}
	if err := tb.Release(); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadState(prefix); err != nil || s.Building || s.Removing {
		t.Fatalf("state of the testbed up built over a half-removed one: %+v, %v; want finished", s, err)
	}
}

// TestCleanupThatCannotDeleteKeepsTheRecord: a namespace that `ip netns del` cannot remove (its
// file is still a mount point, here under a second bind mount) is reported, with the command that
// removes the rest, and the record stays,
// marked removing, so that status calls what is left half-removed and the next down removes it.
// Before, the record went regardless and the remains were a testbed nobody had.
func TestCleanupThatCannotDeleteKeepsTheRecord(t *testing.T) {
	testutil.RequirePriv(t, "the namespace testbed")
	prefix := fmt.Sprintf("qjtt%04d", os.Getpid()%10000) // tbtest's stem: its sweep removes what a killed test leaves
	c := DefaultConfig(2)
	c.Prefix = prefix
	held := filepath.Join(NetnsDir, Names{prefix}.HostNS(1))
	t.Cleanup(func() {
		_ = exec.Command("umount", held).Run()
		_ = Cleanup(context.Background(), prefix)
	})
	tb, err := Up(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "--bind", held, held).CombinedOutput(); err != nil {
		t.Fatalf("mount --bind %s: %v\n%s", held, err, out)
	}

	err = tb.Down()
	var left *NotRemovedError
	if !errors.As(err, &left) || !strings.Contains(err.Error(), Names{prefix}.HostNS(1)) ||
		!strings.Contains(err.Error(), "remove the rest with: "+DownCommand(prefix)) {
		t.Fatalf("down of a namespace that cannot be deleted: %v; want a NotRemovedError naming it and the command that removes the rest", err)
	}
	s, err := ReadState(prefix)
	if err != nil || !s.Removing {
		t.Fatalf("record after a cleanup that left a namespace: %+v, %v; want it kept, marked removing", s, err)
	}
	if _, cond, err := s.Probe(); err != nil || cond != HalfRemoved {
		t.Errorf("condition after a cleanup that left a namespace: %d, %v; want half-removed", cond, err)
	}

	if err := Cleanup(context.Background(), prefix); err != nil {
		t.Fatalf("second cleanup: %v", err)
	}
	if _, err := ReadState(prefix); !errors.Is(err, ErrNotUp) {
		t.Errorf("record after the second cleanup: %v; want it gone", err)
	}
	if nss, _ := Namespaces(prefix); len(nss) > 0 {
		t.Errorf("namespaces after the second cleanup: %v; want none", nss)
	}
}
