package testutil

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Kernel test binaries take turns: one started while another runs waits, says for whom, and
// goes on when the other ends; one that waits longer than the bound gives up, saying to run the
// packages one at a time. Another binary is played by a second open of the lock file, which
// flock treats as another holder.
func TestTakeTurn(t *testing.T) {
	RequirePriv(t, "the kernel tests' turn")
	Set(t, &turnLockPath, filepath.Join(t.TempDir(), "turn.lock"))
	Set(t, &turnWait, 300*time.Millisecond)
	hold := func() *os.File {
		f, err := os.OpenFile(turnLockPath, os.O_RDWR|os.O_CREATE, 0o600)
		if err == nil {
			err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		}
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	other := hold()
	var said bytes.Buffer
	_, err := takeTurn(&said)
	if err == nil || !strings.Contains(err.Error(), "go test -p 1") {
		t.Errorf("waiting past the bound: %v; want a refusal saying go test -p 1", err)
	}
	if want := fmt.Sprintf("waiting for the kernel tests of pid %d", os.Getpid()); !strings.HasPrefix(said.String(), want) {
		t.Errorf("said %q while waiting; want it to start %q", said.String(), want)
	}

	go func() { time.Sleep(100 * time.Millisecond); other.Close() }()
	release, err := takeTurn(&bytes.Buffer{})
	if err != nil {
		t.Fatalf("the other binary ended within the bound: %v", err)
	}
	if os.Getenv(turnEnv) == "" {
		t.Errorf("a binary whose turn it is does not say so to the processes it starts (%s)", turnEnv)
	}
	// A process it starts, such as its own binary run again as a helper, has the turn already
	// (played here by this process, whose turn is held by another open of the lock): waiting
	// would wait for its parent, which waits for it.
	if inherited, err := takeTurn(&bytes.Buffer{}); err != nil {
		t.Errorf("a process started in a turn waited for it: %v", err)
	} else {
		inherited()
	}
	release()
	release, err = takeTurn(&bytes.Buffer{}) // released: the next takes its turn at once
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	release()
}

// A binary run with a -timeout shorter than the turn's bound waits no longer than that timeout:
// go test would kill it a minute later, mid-wait, with nothing said of the turn.
func TestTurnBoundFollowsTheTimeout(t *testing.T) {
	f := flag.Lookup("test.timeout")
	if f == nil {
		t.Fatal("no -test.timeout flag in a test binary")
	}
	was := f.Value.String()
	t.Cleanup(func() { f.Value.Set(was) })
	for _, c := range []struct {
		timeout string
		want    time.Duration
	}{
		{"2m", 2 * time.Minute},
		{"30s", 30 * time.Second},
		{"0s", turnWait},   // no timeout
		{"1h", turnWait},   // longer than the bound
		{"5m0s", turnWait}, // the bound itself
	} {
		if err := f.Value.Set(c.timeout); err != nil {
			t.Fatal(err)
		}
		if got := turnBound(); got != c.want {
			t.Errorf("-test.timeout %s: the turn waits at most %s; want %s", c.timeout, got, c.want)
		}
	}
}
