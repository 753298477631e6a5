package experiment

import (
	"fmt"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testbed"
)

// checkEpsilon refuses a given ε that makes the epoch E = m·n·P·8/R + ε longer than
// model.LongEpoch, the epoch calc and up warn of. The experiments size their arms in epochs
// (fan-in probes 240 epochs an arm in a quick run, 2,500 in a full one), so --epsilon 10s, a slip
// for 10us, made a quick fan-in arm last 40 minutes; the ε this testbed measures is tens of µs.
func checkEpsilon(c testbed.Config, eps time.Duration) error {
	// An epoch over the limit without ε is the hosts' and the rate's, which their own check
	// refuses, naming them: it said "need --epsilon at most 0s" for --hosts 60 at 1M.
	if modelInfo(c, eps).EpochNS <= int64(model.LongEpoch) || modelInfo(c, 0).EpochNS > int64(model.LongEpoch) {
		return nil
	}
	most := max(model.LongEpoch-time.Duration(modelInfo(c, 0).EpochNS), 0)
	return &model.FieldError{Field: "epsilon", Value: model.DurationText(eps), Allowed: fmt.Sprintf(
		"need at most %s at %d hosts and R=%s, so that the epoch is at most %s: the experiments run each arm for hundreds of epochs "+
			"(a quick fan-in arm 240); this testbed's switch and stacks add tens of µs, which the run measures without --epsilon",
		model.DurationText(most), c.Hosts, c.Rate, model.DurationText(model.LongEpoch))}
}
