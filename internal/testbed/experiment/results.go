package experiment

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testbed"
)

// Results is results.json: everything an experiment measured, summarised, and judged against the
// issue's targets. The fields are documented in docs/testbed.md; `qjump testbed report` rebuilds
// Series, Targets, the plots and summary.md from samples.csv and the rest of this file.
type Results struct {
	Experiment string         `json:"experiment"`
	Title      string         `json:"title"`
	Quick      bool           `json:"quick"`
	Started    time.Time      `json:"started"`
	DurationS  float64        `json:"duration_s"`
	Testbed    testbed.Config `json:"testbed"`
	BulkCC     string         `json:"bulk_cc"`
	Model      ModelInfo      `json:"model"`
	QJump      QJumpInfo      `json:"qjump"`
	Arms       []Arm          `json:"arms"`
	Series     []Series       `json:"series"`
	Targets    []Target       `json:"targets"`
	Files      []string       `json:"files"`
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
	return model.Config{Hosts: m.Hosts, Rate: model.Rate(m.RateBPS), Packet: model.Bytes(m.PacketBytes),
		Epsilon: time.Duration(m.EpsilonNS), Mesochronous: m.Mesochronous, Factors: factors}
}

// QJumpInfo says how the QJump arms enabled QJump.
type QJumpInfo struct {
	UpArgs []string `json:"up_args,omitempty"`
}

// Arm is one condition of the experiment: what traffic shared the network, and whether QJump was on.
type Arm struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	QJump       bool    `json:"qjump"`
	Bulk        string  `json:"bulk"`
	Param       float64 `json:"param,omitempty"`
	Skipped     string  `json:"skipped,omitempty"`
	// Bound is the model's latency bound for the arm's probes (fan-in: D7 at f7), and whether the
	// model guarantees it (f7 ≤ m) or it is the same formula continued past where it holds.
	BoundUS         float64 `json:"bound_us,omitempty"`
	BoundGuaranteed bool    `json:"bound_guaranteed,omitempty"`
}

// Series is the statistics of one arm's samples from one tool and metric.
type Series struct {
	Arm    string  `json:"arm"`
	Tool   string  `json:"tool"`
	Metric string  `json:"metric"`
	Param  float64 `json:"param,omitempty"`
	Stats
}

// Target is one of the pass criteria, evaluated on the measured figures.
type Target struct {
	Name      string  `json:"name"`
	Criterion string  `json:"criterion"`
	Value     float64 `json:"value"`
	Limit     float64 `json:"limit"`
	Unit      string  `json:"unit"`
	Evaluated bool    `json:"evaluated"`
	Met       bool    `json:"met"`
	Note      string  `json:"note,omitempty"`
}

func (r *Results) series(arm, tool, metric string) (Series, bool) {
	for _, s := range r.Series {
		if s.Arm == arm && s.Tool == tool && s.Metric == metric {
			return s, s.Samples > s.Lost
		}
	}
	return Series{}, false
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func readResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return &r, nil
}
