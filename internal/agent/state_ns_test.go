package agent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestAgentRecordsItsNamespace: the state an agent saves names its interfaces and its network
// namespace, which qjump status compares with its own before it says that the agent runs QJump
// on an interface (agent.Manages): interface names are per namespace.
func TestAgentRecordsItsNamespace(t *testing.T) {
	e := newAgentNS(t, "qjagst", 86)
	dir := t.TempDir()
	e.start(clusterFile(t, cgroupConfig), dir).stop()
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Devices []string `json:"devices"`
		Netns   string   `json:"netns"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	ns, err := testutil.NetnsKey(e.pair.A)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Devices, []string{"eth0"}) || st.Netns != ns {
		t.Errorf("saved state %s; want devices [eth0] in namespace %s", data, ns)
	}
}

// TestStatusFindsTheAgentByItsSocket: qjump status found the agent that runs QJump on an interface
// only by the lock of the default state directory (agent.Manages), so an agent given another
// --state-dir was not seen, and status advised a qjump down the agent would undo. Status now asks
// the agent of its network namespace on the abstract socket every agent holds: its pid (as the
// kernel gives it, SO_PEERCRED), its state directory and its interfaces.
func TestStatusFindsTheAgentByItsSocket(t *testing.T) {
	e := newAgentNS(t, "qjagsk", 88)
	bin, pair := e.bin, e.pair
	config := clusterFile(t, cgroupConfig)
	dir := filepath.Join(t.TempDir(), "elsewhere") // not /run/qjump-agent
	a := e.start(config, dir)

	st := status(t, bin, pair.A, "eth0")
	if st.Agent == nil || st.Agent.Pid != a.cmd.Process.Pid || st.Agent.StateDir != dir {
		t.Errorf("status --json: agent %+v; want pid %d, state_dir %s", st.Agent, a.cmd.Process.Pid, dir)
	}
	want := fmt.Sprintf("managed by the qjump agent (pid %d, state directory %s)\n", a.cmd.Process.Pid, dir)
	argv := testbed.InNS(pair.A, bin, "status", "--dev", "eth0")
	if out, errOut, code := testutil.Run(t, nil, argv[0], argv[1:]...); code != 0 || !strings.Contains(out, want) {
		t.Errorf("status: exit %d (%s):\n%s\nwant it to say %q", code, errOut, out, want)
	}

	a.stop() // QJump stays attached; no agent runs it now
	if st := status(t, bin, pair.A, "eth0"); st.Agent != nil {
		t.Errorf("status --json after the agent stopped: agent %+v; want none", st.Agent)
	}
}
