package dataplane

import (
	"encoding/json"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// The record keeps the target rates a configuration's factors were solved from, exactly, through
// the JSON it is pinned as: reload solves them again in a new epoch (docs/configuration.md).
func TestRecordKeepsTargetRates(t *testing.T) {
	d := config.Default()
	d.Model.Hosts, d.Model.Rate = 12, 10e9
	d.TargetRates = map[model.Level]model.Rate{5: 5e9, 3: 1.25e9}
	d, err := d.ResolvePacket(1500)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.Solved(); err != nil {
		t.Fatal(err)
	}
	rec, err := newRecord("eth0", 2, d)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var back record
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got, err := back.dataplane()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.SolvedRates) != 2 || got.SolvedRates[5] != 5e9 || got.SolvedRates[3] != 1.25e9 || len(got.TargetRates) != 0 {
		t.Errorf("record %s read back with target rates %v (to solve: %v); want 5: 5e9, 3: 1.25e9 kept, none to solve",
			data, got.SolvedRates, got.TargetRates)
	}
}
