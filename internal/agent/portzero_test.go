package agent_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestListenOnPortZero: --listen 127.0.0.1:0 lets the kernel choose the port, as tests and agents
// side by side need; the agent logs the address it bound, where its endpoints answer. It used to
// be refused as an invalid port.
func TestListenOnPortZero(t *testing.T) {
	e := newAgentNS(t, "qjagpz", 81)
	a := e.start(clusterFile(t, cgroupConfig), t.TempDir())
	if !strings.HasPrefix(a.listen, "127.0.0.1:") || a.listen == "127.0.0.1:0" {
		t.Fatalf("the agent logged listen=%s, want the port the kernel chose", a.listen)
	}
	if code, body, err := a.get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz on the logged address %s: %d %q %v", a.listen, code, body, err)
	}
	a.stop()
}
