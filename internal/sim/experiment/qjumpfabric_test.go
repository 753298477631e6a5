package experiment

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/sim/workload"
)

// Scheme qjump on a fabric whose epoch would outlast the clock is refused in the flags sim fct
// has (--racks, --hosts-per-rack, --edge-rate), with how far each must move: the model's own
// refusal named calc's flags (--hosts, --packet, --mesochronous, --rate), which sim fct has not.
func TestQJumpOnAFabricTooSlowForItsHosts(t *testing.T) {
	fab := topology.PaperFabric()
	fab.Racks, fab.HostsPerRack, fab.EdgeRate = 1000, 100, 100 // 10^5 hosts at 100 b/s: 20000 h
	c := FCTConfig{Scheme: QJump, Load: 0.5, Flows: 10, Fabric: fab, Workload: websearch(t)}
	// Validate refuses 100 b/s first by the simulator's bound on rates (topology.MinRate, 1 Mb/s,
	// at which the model takes scheme qjump on every fabric allowed): the refusal below is
	// qjumpOnFabric's own, for whatever calls it under that bound.
	var fe *model.FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "edge-rate" || !strings.Contains(fe.Allowed, "need 1Mb/s") {
		t.Errorf("qjump at 100 b/s: %v; want the bound on rates", err)
	}
	if err := PaperQJump(MaxHosts, topology.MinRate).Validate(); err != nil {
		t.Errorf("qjump at the least rate on the most hosts: %v", err)
	}
	err := qjumpOnFabric(c.fabric(), c.qjump())
	if !errors.As(err, &fe) {
		t.Fatalf("qjump at 100 b/s on 10^5 hosts: %v; want a refusal of its flags", err)
	}
	var fields []string
	for _, in := range fe.Inputs() {
		fields = append(fields, in.Field)
	}
	if got := strings.Join(fields, ","); got != "racks,hosts-per-rack,edge-rate" {
		t.Errorf("the refusal names %s; want sim fct's racks, hosts-per-rack and edge-rate", got)
	}
	// What it asks for is exactly enough: its host count runs and one more does not; its rate,
	// as printed, runs, and one b/s under the least does not.
	most, least := mostHosts(fab), leastRate(fab)
	if most < 1 || !qjumpValid(most, fab.EdgeRate) || qjumpValid(most+1, fab.EdgeRate) {
		t.Errorf("at most %d hosts at %s: not the largest the model takes", most, model.Rate(fab.EdgeRate))
	}
	if least < 1 || !qjumpValid(fab.Hosts(), least) || qjumpValid(fab.Hosts(), least-1) {
		t.Errorf("an edge rate of at least %d b/s for %d hosts: not the least the model takes", least, fab.Hosts())
	}
	for _, want := range []string{"which the model refuses (they make the epoch", fmt.Sprintf("need at most %d hosts", most),
		"--edge-rate of at least " + model.RateAtLeast(model.Rate(least)).String()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	// The printed rate is rounded up to four digits, so it runs too (a least of 16,664 b/s read as
	// 16.66kb/s would not).
	for _, r := range []model.Rate{model.Rate(least), 16_664, 1_666_401} {
		printed, perr := model.ParseRate(model.RateAtLeast(r).String())
		if perr != nil || printed < r {
			t.Errorf("at least %d b/s printed as %s, read back as %d (%v): less than asked", int64(r), model.RateAtLeast(r), int64(printed), perr)
		}
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
