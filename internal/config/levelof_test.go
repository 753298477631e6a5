package config

import (
	"testing"

	"github.com/qjump-net/qjump/internal/model"
)

func TestLevelOf(t *testing.T) {
	d := Default()
	d.Model.Factors = model.Factors{}
	for l := range model.Level(model.NumLevels) {
		d.Model.Factors[l] = model.Limited(1)
	}
	for p := 0; p < 8; p++ {
		if l := d.LevelOf(p); l != model.Level(p) {
			t.Errorf("default table, every level configured: priority %d counted at level %d", p, l)
		}
	}
	d.DefaultLevel = 2
	if l := d.LevelOf(0); l != 2 {
		t.Errorf("priority 0 with default level 2 counted at %d", l)
	}
	if l := d.LevelOf(42); l != 2 {
		t.Errorf("priority 42 (beyond the table) counted at %d, want the default level 2", l)
	}
	d.PriorityLevels[5] = 4
	if l := d.LevelOf(5); l != 4 {
		t.Errorf("priority 5 mapped to 4 counted at %d", l)
	}
	d.Model.Factors = model.Factors{7: model.Limited(1), 3: model.Limited(2), 0: model.Unlimited()}
	if l := d.LevelOf(6); l != 3 {
		t.Errorf("priority 6 without a factor for level 6 counted at %d, want its carrier 3", l)
	}
}

// Under a ceiling the level drops to it before its carrier is found, and a carrier above the
// ceiling sends nothing, as classify() in bpf/qjump.bpf.c: docs/dataplane.md's factors 7=1,5=12
// with a ceiling of 2 drop everything.
func TestLevelUnder(t *testing.T) {
	d := Default()
	d.Model.Factors = model.Factors{7: model.Limited(1), 5: model.Limited(12)}
	for _, c := range []struct {
		prio          int
		ceiling, want model.Level
		ok            bool
	}{
		{7, 7, 7, true},
		{7, 6, 5, true},  // lowered to 6, carried by 5
		{2, 7, 5, true},  // below every configured level: carried by the lowest, 5
		{2, 2, 5, false}, // ... which a ceiling of 2 does not allow
		{5, 4, 5, false},
	} {
		got, ok := d.LevelUnder(c.prio, c.ceiling)
		if got != c.want || ok != c.ok {
			t.Errorf("priority %d under ceiling %d: level %d, sent %t; want %d, %t", c.prio, c.ceiling, got, ok, c.want, c.ok)
		}
	}
}
