package agent

import (
	"context"
	"os/exec"
	"testing"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// qjumpPair makes a namespace pair for an agent test; the test's end takes QJump down on a's eth0
// (an agent left it attached on purpose) and removes the pair. Package agent_test's tests use it
// too (QJumpPair).
func qjumpPair(t *testing.T, name, addrA, addrB string) *nspair.Pair {
	t.Helper()
	bin := testutil.QjumpBinary(t)
	pair, err := nspair.New(context.Background(), name, addrA, addrB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		argv := testbed.InNS(pair.A, bin, "down", "--dev", "eth0")
		_ = exec.Command(argv[0], argv[1:]...).Run()
		pair.Remove()
	})
	return pair
}
