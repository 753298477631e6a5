package config

import (
	"slices"
	"strings"
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

// The default level without a factor and with no configured level below is warned of, with the
// level that carries it; not where it is configured, or carried by a level below it (review,
// helper-59: --factors 7=1 alone sent every unclassified socket at level 7, silently; helper-63:
// --default-level 7 was told to give level 0 a factor, and an unlimited carrier had a "budget").
func TestDefaultLevelWarning(t *testing.T) {
	for _, c := range []struct {
		name    string
		factors model.Factors
		def     model.Level
		want    string // a part of the warning; "" for none
	}{
		{"the guaranteed level alone", model.Factors{7: model.Limited(1)}, 0, "its traffic is sent at level 7, within its budget of 1538B per epoch"},
		{"an unlimited carrier", model.Factors{7: model.Limited(1), 3: model.Unlimited()}, 0, "its traffic is sent at level 3, unlimited"},
		{"level 0 configured", model.DefaultFactors(), 0, ""},
		{"a default level chosen as the guaranteed one", model.Factors{7: model.Limited(1)}, 7, ""},
		{"a default level carried by one below it", model.Factors{7: model.Limited(1), 0: model.Unlimited()}, 4, ""},
		// Priority 0 mapped to a level: that level is where unclassified sockets go (review, helper-64).
		{"priority 0 mapped to the guaranteed level", model.Factors{7: model.Limited(1)}, -7, ""},
		{"priority 0 mapped below the lowest configured level", model.Factors{7: model.Limited(1), 3: model.Unlimited()}, -1,
			"level 1, priority 0's in the priority map, where every socket that sets no priority goes, has no factor"},
	} {
		d := Default()
		d.Model.Hosts, d.Model.Rate, d.Model.Factors, d.DefaultLevel = 2, 100e6, c.factors, c.def
		if c.def < 0 { // priority 0 mapped to level -def, the default level 3
			d.PriorityLevels[0], d.DefaultLevel = int(-c.def), 3
		}
		got := d.DefaultLevelWarning()
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: warning %q; want one with %q", c.name, got, c.want)
		}
		if got != "" && !slices.Contains(d.Warnings(), got) {
			t.Errorf("%s: Warnings %q lack it", c.name, d.Warnings())
		}
	}
}

// The model's warnings are those of the device's mode: status read the saved model, not told the
// mode, and gave a shape-mode device police mode's "can never send a full-size frame" (review,
// helper-64), which it does send.
func TestWarningsAreTheModes(t *testing.T) {
	d := Default()
	d.Model.Hosts, d.Model.Rate, d.Model.Factors, d.Mode = 4, 1e9, model.Factors{7: model.Limited(1), 5: model.Limited(0.3), 0: model.Unlimited()}, Shape
	d.Model.Mesochronous = 3
	w := d.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "in shape mode the bucket holds one frame all the same") {
		t.Errorf("warnings %q; want shape mode's of level 5", w)
	}
	d.Mode = Police
	if w := d.Warnings(); len(w) != 1 || !strings.Contains(w[0], "can never send a full-size frame") {
		t.Errorf("warnings %q; want police mode's of level 5", w)
	}
}
