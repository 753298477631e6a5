package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

// Scheme qjump runs on every fabric the simulator's bounds allow: at the least rate
// (topology.MinRate) on the most hosts (MaxHosts) the model takes its configuration, so
// FCTConfig.Validate's check of it is a guard, and a fabric too slow for its hosts is refused by
// the bound on rates, in sim fct's own flag (the model's refusal names calc's flags, --hosts and
// --rate, which sim fct has not).
func TestQJumpTakesEveryFabricAllowed(t *testing.T) {
	if err := PaperQJump(MaxHosts, topology.MinRate).Validate(); err != nil {
		t.Errorf("qjump at the least rate on the most hosts: %v", err)
	}
	fab := topology.PaperFabric()
	fab.Racks, fab.HostsPerRack, fab.EdgeRate = 1000, 100, 100 // 10^5 hosts at 100 b/s: an epoch of 20000 h
	c := FCTConfig{Scheme: QJump, Load: 0.5, Flows: 10, Fabric: fab, Workload: websearch(t)}
	var fe *model.FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "edge-rate" || !strings.Contains(fe.Allowed, "need 1Mb/s") {
		t.Errorf("qjump at 100 b/s: %v; want the bound on rates", err)
	}
}

func websearch(t *testing.T) *workload.CDF {
	t.Helper()
	cdf, err := workload.Load("websearch")
	if err != nil {
		t.Fatal(err)
	}
	return cdf
}
