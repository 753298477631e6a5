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

// replaceArgs is an `up --replace` of another epoch than upArgs' (12 hosts, not 10), so that the
// configuration on the interface afterwards says which of the two runs.
func replaceArgs() []string {
	return []string{"up", "--dev", "eth0", "--replace", "--hosts", "12", "--rate", "24M", "--packet", "1500B",
		"--factors", "7=20,5=20,0=unlimited"}
}

// TestUpInterruptHelper is `qjump up` interrupted at one moment, run by TestUpInterrupt in a
// process of its own (the signal is the process's): before-commit sends SIGINT after the
// dataplane is up but before up's commit point; after-up once up has returned, in the moments
// before the process exits; replace-before-commit is before-commit of replaceArgs. It prints up's
// exit status for TestUpInterrupt to read.
func TestUpInterruptHelper(t *testing.T) {
	when := os.Getenv(upInterruptEnv)
	if when == "" {
		t.Skip("run by TestUpInterrupt in a namespace of its own")
	}
	args := upArgs()
	if when == "replace-before-commit" {
		when, args = "before-commit", replaceArgs()
	}
	mainInterrupted(t, args, &beforeUpCommits, when == "before-commit", when == "after-up")
}

// mainInterrupted runs the verb of args through Main in this process and sends the process SIGINT
// at one moment: from hook, the verb's last step before its commit point, if atHook (waiting there
// until the signal has cancelled the verb's context, as if it had come a moment earlier), or once
// Main has returned, in the moments before the process exits, if atExit. It prints "VERB exited
// N" for the test that ran this process to read.
func mainInterrupted(t *testing.T, args []string, hook *func(context.Context), atHook, atExit bool) {
	interrupt := func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	if atHook {
		*hook = func(ctx context.Context) {
			interrupt()
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
				t.Errorf("SIGINT did not cancel %s's context", args[0])
			}
		}
	}
	code := Main(args, os.Stderr, os.Stderr)
	if atExit {
		interrupt()
		time.Sleep(200 * time.Millisecond) // a default SIGINT would end the process here
	}
	fmt.Printf("%s exited %d\n", args[0], code)
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

// TestUpReplaceInterrupt: an `up --replace` interrupted before its commit point puts back the
// QJump configuration it was replacing, on the same hook, over the same saved egress tree (down
// afterwards gives back what was there before the first up). It used to take the interface down
// altogether: the working configuration was lost.
func TestUpReplaceInterrupt(t *testing.T) {
	ns := newHost(t)
	before := snapshot(t, ns)
	if _, errOut, code := qjumpIn(t, ns, nil, upArgs()...); code != 0 {
		t.Fatalf("qjump up: exit %d: %s", code, errOut)
	}
	first := statusOf(t, ns)
	up := snapshot(t, ns)
	out, errOut, code := testutil.Run(t, []string{upInterruptEnv + "=replace-before-commit"},
		"ip", "netns", "exec", ns, os.Args[0], "-test.run=^TestUpInterruptHelper$")
	says := "put back the configuration eth0 ran before"
	if code != 0 || !strings.Contains(out, fmt.Sprintf("up exited %d\n", exitInterrupted)) || !strings.Contains(errOut, says) {
		t.Errorf("SIGINT before up --replace committed: process exit %d, stdout %q, stderr %q; want up to exit %d saying %q",
			code, out, errOut, exitInterrupted, says)
	}
	if got := statusOf(t, ns); !got.Attached || got.EpochNs != first.EpochNs || got.Attach != first.Attach {
		t.Errorf("after the interrupted --replace: %+v; want attached via %s with the first up's epoch %dns",
			got, first.Attach, first.EpochNs)
	}
	if after := snapshot(t, ns); after != up {
		t.Errorf("the configuration put back differs on eth0.\nafter the first up:\n%s\nnow:\n%s", up, after)
	}
	if _, errOut, code := qjumpIn(t, ns, nil, "down", "--dev", "eth0"); code != 0 {
		t.Fatalf("qjump down: exit %d: %s", code, errOut)
	}
	if after := snapshot(t, ns); after != before {
		t.Errorf("down after the put-back left eth0 changed.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// statusOf is eth0's entry of `qjump status --json` in ns; the test fails if QJump is not up.
func statusOf(t *testing.T, ns string) testutil.StatusDevice {
	t.Helper()
	out, errOut, code := qjumpIn(t, ns, nil, "status", "--json", "--dev", "eth0")
	if code != 0 {
		t.Fatalf("qjump status: exit %d: %s", code, errOut)
	}
	s := testutil.DecodeStatus(t, []byte(out))
	if len(s.Devices) != 1 {
		t.Fatalf("qjump status --dev eth0: %d devices", len(s.Devices))
	}
	return s.Devices[0]
}
