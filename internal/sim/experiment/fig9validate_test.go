package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/model"
)

// Flows that would not arrive within the clock at the sweep's slowest point are refused before
// any point runs, as a field error of "flows" naming the most allowed: sim run, which has no
// --load, said "raise --load or lower --flows".
func TestFig9ValidateNamesTheFlows(t *testing.T) {
	c := DefaultFig9(true)
	if err := c.Validate(); err != nil {
		t.Fatalf("the quick sweep: %v", err)
	}
	for w := range c.Flows {
		c.Flows[w] = 2000000000000
	}
	// Past MaxFlows, the memory the flows take refuses them first.
	err := c.Validate()
	var fe *model.FieldError
	if !errors.As(err, &fe) || fe.Field != "flows" || fe.Value != "2000000000000" || fe.Allowed != FlowsAllowed {
		t.Fatalf("Validate = %v, want a field error of flows with the memory bound", err)
	}
	// Within it, the arrivals at a load far below the paper's do not fit in the clock's bound.
	c.Loads = append(c.Loads, 1e-6)
	for w := range c.Flows {
		c.Flows[w] = MaxFlows
	}
	err = c.Validate()
	if !errors.As(err, &fe) || fe.Field != "flows" || fe.Value != "1000000" {
		t.Fatalf("Validate = %v, want a field error of flows", err)
	}
	if !strings.Contains(fe.Allowed, "datamining at load 1e-06") || strings.Contains(fe.Allowed, "load or") {
		t.Errorf("allowed %q: want the slowest point named, and no --load", fe.Allowed)
	}
	// The most it allows does arrive in time, and one more does not.
	most := c.pointsMaxFlows(t)
	for w := range c.Flows {
		c.Flows[w] = most
	}
	if err := c.Validate(); err != nil {
		t.Errorf("%d flows, the most allowed: %v", most, err)
	}
	for w := range c.Flows {
		c.Flows[w] = most + 1
	}
	if err := c.Validate(); err == nil {
		t.Errorf("%d flows, one over the most allowed, passed", most+1)
	}
}

// pointsMaxFlows is the fewest flows any point of c allows.
func (c Fig9Config) pointsMaxFlows(t *testing.T) int {
	cfgs, err := c.pointConfigs()
	if err != nil {
		t.Fatal(err)
	}
	most := cfgs[0].maxFlows()
	for _, p := range cfgs {
		most = min(most, p.maxFlows())
	}
	return most
}
