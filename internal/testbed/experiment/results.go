package experiment

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/machine"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testbed"
)

// Results is results.json: everything an experiment measured, summarised, and judged against the
// issue's targets, with the testbed it ran on. The fields are documented in docs/testbed.md;
// `qjump testbed report` rebuilds Series, Targets, the plots and summary.md from samples.csv and
// the rest of this file.
type Results struct {
	results.Header
	Testbed testbed.Config `json:"testbed"`
	BulkCC  string         `json:"bulk_cc"`
	Model   ModelInfo      `json:"model"`
	QJump   QJumpInfo      `json:"qjump"`
	Machine MachineInfo    `json:"machine,omitzero"` // absent from runs before it was recorded
	results.Outcome

	stalls *machine.Timeline // the machine's measured stalls (stalls.csv); nil: not measured
}

// ModelInfo is the QJump model of the emulated cluster, as given to `qjump up`.
type ModelInfo struct {
	Hosts        int     `json:"hosts"`
	RateBPS      float64 `json:"rate_bps"`
	PacketBytes  int64   `json:"packet_bytes"`
	EpsilonNS    int64   `json:"epsilon_ns"`
	Mesochronous int     `json:"mesochronous"`
	EpochNS      int64   `json:"epoch_ns"`
	FrameTimeNS  int64   `json:"max_frame_time_ns"`
}

// config is the model.Config these figures describe, with factors: the one place the testbed
// builds it, so that `qjump up`, the epoch and the bounds all come from the same model.
func (m ModelInfo) config(factors model.Factors) model.Config {
	// The experiments run QJump in shape mode (Env.qjumpUp), so their bounds count its burst.
	return model.Config{Hosts: m.Hosts, Rate: model.Rate(m.RateBPS), Packet: model.Bytes(m.PacketBytes),
		Epsilon: time.Duration(m.EpsilonNS), Mesochronous: m.Mesochronous, Factors: factors, Shaped: true}
}

// QJumpInfo says how the QJump arms enabled QJump.
type QJumpInfo struct {
	UpArgs []string `json:"up_args,omitempty"`
}

// series is the series of arm, tool and metric, and whether it has a delivered sample.
func (r *Results) series(arm, tool, metric string) (results.Series, bool) {
	return r.Lookup(results.Key{Arm: arm, Tool: tool, Metric: metric})
}

// armHasQJump reports that arm ran with QJump on.
func (r *Results) armHasQJump(arm string) bool {
	a, ok := r.Arm(arm)
	return ok && a.QJump && a.Skipped == ""
}

// view is r as the table and summary.md show it.
func (r *Results) view() results.View {
	v := results.View{Header: r.Header, Outcome: r.Outcome, Headline: headline(r),
		Method: fmt.Sprintf("QJump: `qjump up %s` on every host. %s", strings.Join(r.QJump.UpArgs, " "), r.Machine.Method())}
	if e, ok := experiments[r.Experiment]; ok && e.paper != nil {
		v.Paper = func(s results.Series) string { return e.paper(r, s) }
	}
	return v
}

// headline is the run's setup in one line. The epoch is rounded up, as calc, up and status print
// it: the demo printed 9.893ms here and 9.894ms from calc for the one epoch (review, helper-99).
func headline(r *Results) string {
	c := r.Testbed
	return fmt.Sprintf("%s; %d hosts, R=%s, switch queues of %d packets, bulk TCP %s, ε=%s, epoch %s",
		r.Title, c.Hosts, c.Rate, c.Buffer, r.BulkCC, model.DurationText(time.Duration(r.Model.EpsilonNS)),
		model.BoundText(time.Duration(r.Model.EpochNS)))
}

// Table prints the summary table of r: one line per series, then the targets.
func Table(w io.Writer, r *Results) error { return r.view().Table(w) }

// Summary is summary.md: the table in Markdown, the targets, and the plots.
func Summary(r *Results) string { return r.view().Markdown() }
