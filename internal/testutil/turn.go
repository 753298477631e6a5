package testutil

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// The packages whose tests use the kernel take turns, one test binary at a time: their suites
// saturate emulated links and measure latency, so two side by side measure each other, and cli's
// TestBadInput checks that nothing is pinned in bpffs, which another package's tests running
// beside it does. make test runs go test -p 1; a go test of several packages without it runs their
// binaries at once, and they failed in ways that said nothing of why. Now each waits its turn.
var (
	turnLockPath = "/run/qjump-kernel-tests.lock"
	// turnWait bounds the wait: go test kills a binary a minute after its -timeout (10 minutes by
	// default) counted from its start, and the longest suite (testbed/experiment) runs about 5.
	// A shorter -timeout bounds it further (turnBound).
	turnWait = 5 * time.Minute
)

// turnEnv is set in the environment of a test binary whose turn it is, so that the processes it
// starts inherit the turn: a test that runs its own binary again as a helper process
// (TestReloadInterruptHelper) would otherwise wait for its parent, which waits for it.
const turnEnv = "QJUMP_KERNEL_TESTS_TURN"

// takeTurn waits until no other kernel test binary runs, saying once on w whom it waits for, and
// returns what ends its turn. Tests that are not root use no kernel and take no turn. The wait is
// polled (host.FlockWithin), not queued: with more binaries than two waiting at once, which goes
// next is chance.
func takeTurn(w io.Writer) (release func(), err error) {
	if os.Geteuid() != 0 || os.Getenv(turnEnv) != "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(turnLockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		// Root that cannot write /run (a user namespace, a read-only /run) has no kernel of its
		// own to share either: the tests run, and those that need it say what they lack.
		fmt.Fprintf(w, "no turn among the kernel tests (%v): running without one\n", err)
		return func() {}, nil
	}
	err = host.FlockWithin(f, 0) // at once, or say whom it waits for
	bound := turnBound()
	if errors.Is(err, unix.EWOULDBLOCK) {
		fmt.Fprintf(w, "waiting for the kernel tests of %s to end: packages take turns (go test -p 1, as make test runs them, never waits)\n", turnHolder())
		err = host.FlockWithin(f, bound)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("kernel tests' turn (%s): %w; another package's kernel tests (%s) ran for more than %s: "+
			"run them one package at a time, go test -p 1, as make test does", turnLockPath, err, turnHolder(), bound)
	}
	os.Setenv(turnEnv, fmt.Sprint(os.Getpid()))
	return func() { os.Unsetenv(turnEnv); f.Close() }, nil
}

// turnBound is how long a binary waits for its turn: turnWait, or the binary's -test.timeout if
// that is shorter. go test kills a binary a minute after its timeout whatever it is doing, so a
// wait longer than the timeout would end in that kill, which says nothing of the turn; ending the
// wait first says whom it waited for.
func turnBound() time.Duration {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return turnWait
	}
	if !flag.Parsed() {
		flag.Parse() // TestMain runs before testing parses the flags; m.Run does not parse twice
	}
	timeout, ok := f.Value.(flag.Getter).Get().(time.Duration)
	if !ok || timeout <= 0 || timeout >= turnWait {
		return turnWait
	}
	return timeout
}

// turnHolder names the test binary whose turn it is.
func turnHolder() string {
	pid, ok := host.LockHolder(turnLockPath)
	if !ok {
		return "another test binary"
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return fmt.Sprintf("pid %d (%s)", pid, exe)
}
