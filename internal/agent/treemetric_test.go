package agent

import (
	"os/exec"
	"testing"

	promtest "github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestEgressTreeMetricSeesALeafDeleted: qjump_egress_tree, which the alert QJumpEgressTreeGone
// watches, read 1 with a level's leaf qdisc deleted by hand (its shaper gone, the kernel's
// default FIFO in its place): the tree check did not look at leaves. It reads 0 now. No agent
// runs here, so nothing puts the leaf back between the delete and the scrape.
func TestEgressTreeMetricSeesALeafDeleted(t *testing.T) {
	testutil.RequirePriv(t, "the dataplane")
	bin := testutil.QjumpBinary(t)
	pair := qjumpPair(t, "qjagmt", "198.19.89.1", "198.19.89.2")
	run := func(args ...string) {
		t.Helper()
		argv := testbed.InNS(pair.A, args...)
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
	}
	run(bin, "up", "--dev", "eth0", "--mode", "shape", "--hosts", "2", "--rate", "100M", "--factors", "7=1,0=unlimited")
	c := dataplaneCollector{log: func(err error) { t.Error(err) }, list: func() ([]dataplane.Status, error) {
		var all []dataplane.Status
		var err error
		if nsErr := host.InNetns(pair.A, func() { all, err = dataplane.List() }); nsErr != nil {
			return nil, nsErr
		}
		return all, err
	}}
	tree := func() float64 { return promtest.ToFloat64(onlyMetric(c, "qjump_egress_tree", `interface="eth0"`)) }
	if v := tree(); v != 1 {
		t.Fatalf("qjump_egress_tree %v after up, want 1", v)
	}
	run("tc", "qdisc", "del", "dev", "eth0", "parent", "514a:17")
	if v := tree(); v != 0 {
		t.Errorf("qjump_egress_tree %v with level 7's leaf qdisc deleted, want 0", v)
	}
}
