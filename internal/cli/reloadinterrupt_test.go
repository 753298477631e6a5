package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// reloadInterruptEnv tells this test binary, run again inside a test's namespace, to be
// TestReloadInterruptHelper and when to send itself SIGINT.
const reloadInterruptEnv = "QJUMP_TEST_RELOAD_INTERRUPT"

// TestReloadInterruptHelper is `qjump reload --hosts 12` interrupted at one moment, run by
// TestReloadInterrupt in a process of its own: after-reload sends SIGINT once the new
// configuration is in place, before reload's commit point; after-exit once reload has returned,
// in the moments before the process exits. It prints reload's exit status.
func TestReloadInterruptHelper(t *testing.T) {
	when := os.Getenv(reloadInterruptEnv)
	if when == "" {
		t.Skip("run by TestReloadInterrupt in a namespace of its own")
	}
	args := []string{"reload", "--dev", "eth0", "--hosts", "12"}
	mainInterrupted(t, args, &beforeReloadCommits, when == "after-reload", when == "after-exit")
}

// TestReloadInterrupt: reload's contract on Ctrl-C (reload --help), up's: once the new
// configuration is in place (the commit point) a signal neither undoes it nor makes reload
// fail; it exits 0 and the interface runs the new configuration. reload used to exit 130 for a
// reload that had succeeded, and to die of a signal in the moments before it exited.
func TestReloadInterrupt(t *testing.T) {
	for _, when := range []string{"after-reload", "after-exit"} {
		t.Run(when, func(t *testing.T) {
			ns := newHost(t)
			if _, errOut, code := qjumpIn(t, ns, nil, upArgs()...); code != 0 {
				t.Fatalf("qjump up: exit %d: %s", code, errOut)
			}
			first := statusOf(t, ns)
			out, errOut, code := testutil.Run(t, []string{reloadInterruptEnv + "=" + when},
				"ip", "netns", "exec", ns, os.Args[0], "-test.run=^TestReloadInterruptHelper$")
			if code != 0 || !strings.Contains(out, "reload exited 0\n") || !strings.Contains(errOut, "qjump: reloaded eth0") {
				t.Errorf("SIGINT %s: process exit %d (-1: killed by the signal), stdout %q, stderr %q; want reload to exit 0 saying it reloaded eth0",
					when, code, out, errOut)
			}
			// 12 hosts instead of 10: the epoch grows by 12/10.
			if got := statusOf(t, ns); got.Generation != 2 || got.EpochNs != first.EpochNs*12/10 {
				t.Errorf("SIGINT %s: eth0 at generation %d, epoch %dns; want the new configuration, generation 2, epoch %dns",
					when, got.Generation, got.EpochNs, first.EpochNs*12/10)
			}
		})
	}
}
