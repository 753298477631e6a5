package agent_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestListenOnPortZero: --listen 127.0.0.1:0 lets the kernel choose the port, as tests and agents
// side by side need; the agent logs the address it bound, where its endpoints answer. It used to
// be refused as an invalid port.
func TestListenOnPortZero(t *testing.T) {
	testutil.RequirePriv(t, "the agent's dataplane")
	bin := testutil.QjumpBinary(t)
	pair := qjumpPair(t, "qjagpz", "198.19.81.1", "198.19.81.2")
	config := clusterFile(t, cgroupConfig)
	a := startAgent(t, bin, pair.A, config, "127.0.0.1:0", t.TempDir())
	a.waitListening(10 * time.Second)
	if !strings.HasPrefix(a.listen, "127.0.0.1:") || a.listen == "127.0.0.1:0" {
		t.Fatalf("the agent logged listen=%s, want the port the kernel chose", a.listen)
	}
	if code, body, err := a.get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz on the logged address %s: %d %q %v", a.listen, code, body, err)
	}
	a.stop()
}
