package agent_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// qjumpPair makes a namespace pair for an agent test (agent.QJumpPair).
var qjumpPair = agent.QJumpPair

// agentNS is where an agent test runs the real binary: a namespace pair, the agent in its first.
type agentNS struct {
	t    *testing.T
	bin  string
	pair *nspair.Pair
}

// newAgentNS is how the tests of the agent's dataplane start: root (skipped without), the qjump
// binary, and a namespace pair named name on 198.19.subnet.0/24 (qjumpPair).
func newAgentNS(t *testing.T, name string, subnet int) agentNS {
	t.Helper()
	testutil.RequirePriv(t, "the agent's dataplane")
	bin := testutil.QjumpBinary(t)
	pair := qjumpPair(t, name, fmt.Sprintf("198.19.%d.1", subnet), fmt.Sprintf("198.19.%d.2", subnet))
	return agentNS{t: t, bin: bin, pair: pair}
}

// start runs an agent in the pair's first namespace on the cluster file at config, its state in
// stateDir, serving on a port the kernel picks, and waits until it listens and is ready.
func (e agentNS) start(config, stateDir string, extra ...string) *runningAgent {
	e.t.Helper()
	a := startAgent(e.t, e.bin, e.pair.A, config, "127.0.0.1:0", stateDir, extra...)
	a.waitListening(10 * time.Second)
	a.waitReady(10 * time.Second)
	return a
}
