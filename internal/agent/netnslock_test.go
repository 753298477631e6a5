package agent_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// An agent is named by its pid and state directory where they are known, in one wording for the
// refusal of a second agent and for qjump status: an agent in a pid namespace this process cannot
// see has no pid here (SO_PEERCRED gives 0), and one of an earlier version does not say its
// directory.
func TestRunningName(t *testing.T) {
	for _, c := range []struct {
		r    agent.Running
		want string
	}{
		{agent.Running{Pid: 42, StateDir: "/run/x"}, "qjump agent (pid 42, state directory /run/x)"},
		{agent.Running{Pid: 42}, "qjump agent (pid 42)"},
		{agent.Running{StateDir: "/run/x"}, "qjump agent (in another pid namespace, state directory /run/x)"},
		{agent.Running{}, "qjump agent (in another pid namespace)"},
	} {
		if got := c.r.Name(); got != c.want {
			t.Errorf("%+v.Name() = %q, want %q", c.r, got, c.want)
		}
	}
}

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

// squat binds the abstract unix socket every agent binds (@qjump-agent) and answers whoever
// connects as an agent would, with a lie: a state directory and eth0. It prints its pid once bound.
const squat = `import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0qjump-agent")
s.listen(8)
print(os.getpid(), flush=True)
while True:
    c, _ = s.accept()
    try:
        c.sendall(b'{"state_dir":"/lie","devices":["eth0"]}\n')
    except OSError:
        pass  # closed unread
    c.close()
`

// TestSquatterOnTheNetnsSocketIsNoAgent: abstract unix socket names have no permissions, so any
// local user can bind @qjump-agent in a network namespace before its agent does. Such a holder
// (here uid 65534, nobody) is believed by neither side: status, asking who runs QJump on eth0,
// reads nothing from it and names no agent (the kernel gives the holder's uid, SO_PEERCRED), and
// an agent that finds the name taken refuses to start, naming the holder's pid and uid, rather than
// run without the namespace's lock.
func TestSquatterOnTheNetnsSocketIsNoAgent(t *testing.T) {
	e := newAgentNS(t, "qjagsq", 91)
	config := clusterFile(t, cgroupConfig)
	must(t, testbed.InNS(e.pair.A, e.bin, "up", "--dev", "eth0", "--config", config)...)
	argv := testbed.InNS(e.pair.A, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
		"/usr/bin/python3", "-c", squat)
	squatter := exec.Command(argv[0], argv[1:]...)
	out, err := squatter.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	squatter.Stderr = os.Stderr
	if err := squatter.Start(); err != nil {
		testutil.Unavailable(t, fmt.Sprintf("run /usr/bin/python3 as nobody: %v", err))
	}
	t.Cleanup(func() {
		_ = squatter.Process.Kill()
		_ = squatter.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the squatter did not bind @qjump-agent: %v", err)
	}
	pid := strings.TrimSpace(line)

	if st := status(t, e.bin, e.pair.A, "eth0"); st.Agent != nil {
		t.Errorf("status --json believed the squatter (pid %s, uid 65534): agent %+v; want none", pid, st.Agent)
	}
	sargv := testbed.InNS(e.pair.A, e.bin, "status", "--dev", "eth0")
	if text, errOut, code := testutil.Run(t, nil, sargv[0], sargv[1:]...); code != 0 || strings.Contains(text, "managed by") {
		t.Errorf("status: exit %d (%s):\n%s\nwant no agent named", code, errOut, text)
	}

	aargv := testbed.InNS(e.pair.A, "timeout", "--signal=KILL", "10",
		e.bin, "agent", "--config", config, "--listen", "127.0.0.1:0", "--state-dir", t.TempDir())
	_, errOut, code := testutil.Run(t, nil, aargv[0], aargv[1:]...)
	want := "pid " + pid + " (uid 65534) holds the abstract unix socket @qjump-agent"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("an agent beside the squatter: exit %d (-1: still running, killed after 10 s), stderr %q; "+
			"want 1 and a refusal saying %q", code, errOut, want)
	}
}
