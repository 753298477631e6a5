package agent_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestOneAgentPerNetns: a second agent in a network namespace is refused whatever its
// --state-dir, naming the first's pid and state directory and what to do, and changes nothing; once the first is
// killed with SIGKILL (no chance to clean up) the next one starts. Before, the lock was the state
// directory's alone, and two agents with different ones ran side by side on the same interfaces.
func TestOneAgentPerNetns(t *testing.T) {
	e := newAgentNS(t, "qjagns", 84)
	bin, pair := e.bin, e.pair
	config := clusterFile(t, cgroupConfig)
	firstDir := t.TempDir()
	first := e.start(config, firstDir)

	// Bounded: an agent that is not refused runs until it is killed.
	argv := testbed.InNS(pair.A, "timeout", "--signal=KILL", "10",
		bin, "agent", "--config", config, "--listen", "127.0.0.1:0", "--state-dir", t.TempDir())
	_, errOut, code := testutil.Run(t, nil, argv[0], argv[1:]...)
	want := fmt.Sprintf("another qjump agent (pid %d, state directory %s) runs in this network namespace: "+
		"run one agent per network namespace", first.cmd.Process.Pid, firstDir)
	if code != 1 || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("second agent with another --state-dir: exit %d (-1: still running, killed after 10 s), stderr %q; "+
			"want 1 and one line saying %q", code, errOut, want)
	}
	if st := status(t, bin, pair.A, "eth0"); st.Generation != 1 || !st.Attached {
		t.Errorf("after the refused agent: generation %d, attached %v; want the first's up untouched", st.Generation, st.Attached)
	}

	first.kill9()
	e.start(config, t.TempDir()).stop()
}
