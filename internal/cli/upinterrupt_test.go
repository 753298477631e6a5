package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testutil"
)

// upInterruptEnv tells this test binary, run again inside a test's namespace, to be
// TestUpInterruptHelper and when to send itself SIGINT.
const upInterruptEnv = "QJUMP_TEST_UP_INTERRUPT"

// TestUpInterruptHelper is `qjump up` interrupted at one moment, run by TestUpInterrupt in a
// process of its own (the signal is the process's): before-commit sends SIGINT after the
// dataplane is up but before up's commit point; after-up once up has returned, in the moments
// before the process exits. It prints up's exit status for TestUpInterrupt to read.
func TestUpInterruptHelper(t *testing.T) {
	when := os.Getenv(upInterruptEnv)
	if when == "" {
		t.Skip("run by TestUpInterrupt in a namespace of its own")
	}
	interrupt := func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	if when == "before-commit" {
		beforeUpCommits = func(ctx context.Context) {
			interrupt()
			select { // until the signal has arrived, as if it had come a moment earlier
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
				t.Error("SIGINT did not cancel up's context")
			}
		}
	}
	code := Main(upArgs(), os.Stderr, os.Stderr)
	if when == "after-up" {
		interrupt()
		time.Sleep(200 * time.Millisecond) // a default SIGINT would end the process here
	}
	fmt.Printf("up exited %d\n", code)
}

// TestUpInterrupt: up's contract on Ctrl-C (up --help). Before the commit point everything up did
// is undone and it exits 130; after it, the configuration is complete and up exits 0 with QJump
// up. up let go of SIGINT once it had committed, so a Ctrl-C in the moments before the process
// exited killed it: exit 130, QJump up.
func TestUpInterrupt(t *testing.T) {
	cases := []struct {
		when     string
		code     int
		says     string
		attached bool
	}{
		{"before-commit", exitInterrupted, "nothing left attached on eth0", false},
		{"after-up", exitOK, "qjump: up on eth0", true},
	}
	for _, tc := range cases {
		t.Run(tc.when, func(t *testing.T) {
			ns := newHost(t)
			before := snapshot(t, ns)
			out, errOut, code := testutil.Run(t, []string{upInterruptEnv + "=" + tc.when},
				"ip", "netns", "exec", ns, os.Args[0], "-test.run=^TestUpInterruptHelper$")
			want := fmt.Sprintf("up exited %d\n", tc.code)
			if code != 0 || !strings.Contains(out, want) || !strings.Contains(errOut, tc.says) {
				t.Errorf("SIGINT %s: process exit %d (-1: killed by the signal), stdout %q, stderr %q; want %q saying %q",
					tc.when, code, out, errOut, want, tc.says)
			}
			_, _, status := qjumpIn(t, ns, nil, "status", "--dev", "eth0")
			if attached := status == 0; attached != tc.attached {
				t.Errorf("SIGINT %s: QJump up on eth0 afterwards: %v, want %v", tc.when, attached, tc.attached)
			}
			if after := snapshot(t, ns); !tc.attached && after != before {
				t.Errorf("SIGINT %s left eth0 changed.\nbefore:\n%s\nafter:\n%s", tc.when, before, after)
			}
		})
	}
}
