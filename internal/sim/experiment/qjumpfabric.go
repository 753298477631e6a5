package experiment

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/sim"
	"github.com/qjump-net/qjump/internal/sim/topology"
)

// qjumpOnFabric validates the QJump configuration that scheme qjump runs on fab (PaperQJump), and
// words a refusal in the simulator's own flags: its n is the fabric's hosts (--racks ×
// --hosts-per-rack) and its R the --edge-rate, while P, m and the factors are the paper's, which
// no flag of sim fct sets. The model's own refusal names calc's flags (--hosts, --packet,
// --factors, --rate), which sim fct has not, and asks for moves it cannot make. What a fabric can
// get wrong is too many hosts for its rate (an epoch, or level 7's fan-in delay, beyond
// model.MaxEpoch), so the refusal says how many hosts this rate allows and what rate these hosts
// need, each found by asking the model itself. Within sim fct's own bounds (an edge rate of at
// least 1 Mb/s, MaxHosts) the model takes every fabric, so from the command line this
// refuses nothing today; it guards FCTConfig's other callers and any widening of those bounds.
func qjumpOnFabric(fab topology.Config, qj model.Config) error {
	err := qj.Validate()
	if err == nil {
		return nil
	}
	why := err.Error()
	var fe *model.FieldError
	if errors.As(err, &fe) {
		why, _, _ = strings.Cut(fe.Allowed, ": need") // the model's reason, without its moves in calc's flags
	}
	var moves []string
	if n := mostHosts(fab); n > 0 {
		moves = append(moves, fmt.Sprintf("at most %d hosts (--racks × --hosts-per-rack) at this --edge-rate", n))
	}
	if r := leastRate(fab); r > 0 {
		moves = append(moves, fmt.Sprintf("an --edge-rate of at least %s for these hosts", model.RateAtLeast(model.Rate(r))))
	}
	if len(moves) == 0 {
		return fmt.Errorf("scheme qjump on %d hosts at %s, with the paper's P = %s and m = %d: %w",
			qj.Hosts, qj.Rate, qj.Packet, qj.Mesochronous, err)
	}
	return &model.FieldError{Field: "racks", Value: strconv.Itoa(fab.Racks), Together: []model.Input{
		{Field: "racks", Value: strconv.Itoa(fab.Racks)},
		{Field: "hosts-per-rack", Value: strconv.Itoa(fab.HostsPerRack)},
		{Field: "edge-rate", Value: model.Rate(fab.EdgeRate).String()},
	}, Allowed: fmt.Sprintf("scheme qjump runs QJump with n = %d hosts at R = %s and the paper's P = %s, m = %d and "+
		"factors, which the model refuses (%s): need %s", qj.Hosts, qj.Rate, qj.Packet, qj.Mesochronous, why,
		strings.Join(moves, ", or "))}
}

// qjumpValid says whether the model takes scheme qjump's configuration for n hosts at rate r.
func qjumpValid(n int, r sim.Rate) bool { return PaperQJump(n, r).Validate() == nil }

// mostHosts is the largest number of hosts below fab's that scheme qjump runs with at fab's edge
// rate, or 0 if not even one host does. (More hosts only ever lengthen the epoch and the bounds.)
func mostHosts(fab topology.Config) int {
	refused := sort.Search(fab.Hosts(), func(n int) bool { return !qjumpValid(n+1, fab.EdgeRate) })
	return refused // hosts 1..refused are taken
}

// leastRate is the lowest edge rate, in b/s, at which scheme qjump runs with fab's hosts, or 0 if
// none up to 10^15 b/s does. (A faster rate only ever shortens the epoch and the bounds.)
func leastRate(fab topology.Config) sim.Rate {
	const most = 1_000_000_000_000_000
	if !qjumpValid(fab.Hosts(), most) {
		return 0
	}
	return sim.Rate(sort.Search(most, func(r int) bool { return qjumpValid(fab.Hosts(), sim.Rate(r)) }))
}
