package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestAgentRecordsItsNamespace: the state an agent saves names its interfaces and its network
// namespace, which qjump status compares with its own before it says that the agent runs QJump
// on an interface (agent.Manages): interface names are per namespace.
func TestAgentRecordsItsNamespace(t *testing.T) {
	testutil.RequirePriv(t, "the agent's dataplane")
	bin := testutil.QjumpBinary(t)
	pair := qjumpPair(t, "qjagst", "198.19.86.1", "198.19.86.2")
	config := clusterFile(t, cgroupConfig)
	dir := t.TempDir()
	a := startAgent(t, bin, pair.A, config, "127.0.0.1:0", dir)
	a.waitListening(10 * time.Second)
	a.waitReady(10 * time.Second)
	a.stop()
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
	ns, err := testutil.NetnsKey(pair.A)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Devices, []string{"eth0"}) || st.Netns != ns {
		t.Errorf("saved state %s; want devices [eth0] in namespace %s", data, ns)
	}
}
