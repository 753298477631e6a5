package testutil

import (
	"encoding/json"
	"testing"
)

// Status is what tests read of `qjump status --json`, decoded on its own rather than through the
// CLI's types, so that the tests also hold the documented field names to account.
type Status struct {
	Devices  []StatusDevice `json:"devices"`
	LeftOver []string       `json:"left_over"`
}

// StatusDevice is one device of Status.
type StatusDevice struct {
	Device     string `json:"device"`
	UpAs       string `json:"up_as"`
	Attached   bool   `json:"attached"`
	Attach     string `json:"attach"`
	EgressTree bool   `json:"egress_tree"`
	// EgressTreeGone says what became of the egress tree when EgressTree is false.
	EgressTreeGone string        `json:"egress_tree_gone"`
	Warnings       []string      `json:"warnings"`
	Generation     uint64        `json:"generation"`
	EpochNs        int64         `json:"epoch_ns"`
	Levels         []StatusLevel `json:"levels"`
}

// StatusLevel is one level of a StatusDevice.
type StatusLevel struct {
	Level          int      `json:"level"`
	BudgetBytes    *int64   `json:"budget_bytes"`
	RateBps        *float64 `json:"rate_bps"`
	SentPackets    uint64   `json:"sent_packets"`
	SentBytes      uint64   `json:"sent_bytes"`
	DroppedPackets uint64   `json:"dropped_packets"`
	ShapedPackets  uint64   `json:"shaped_packets"`
	DemotedPackets uint64   `json:"demoted_packets"`
	NoLevelPackets uint64   `json:"no_level_packets"`
	// OversizePackets were larger than the level's whole budget (a GSO packet, say).
	OversizePackets uint64 `json:"oversize_packets"`
}

// DecodeStatus decodes the output of `qjump status --json`, failing t if it does not decode.
func DecodeStatus(t testing.TB, out []byte) Status {
	t.Helper()
	var s Status
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("decode qjump status --json: %v\n%s", err, out)
	}
	return s
}

// Level finds level l in the device's status by its number, not by its place in the list.
func (d StatusDevice) Level(t testing.TB, l int) StatusLevel {
	t.Helper()
	for _, s := range d.Levels {
		if s.Level == l {
			return s
		}
	}
	t.Fatalf("status of %s has no level %d", d.Device, l)
	return StatusLevel{}
}
