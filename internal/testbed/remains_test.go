package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
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
