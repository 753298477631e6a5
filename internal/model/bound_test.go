package model

import (
	"math"
	"testing"
	"time"
)

func TestFanIn(t *testing.T) {
	base := Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 2}
	tests := []struct {
		name           string
		factors        Factors
		level          Level
		wantSum        float64
		wantGuaranteed bool
		wantDelay      time.Duration
		wantOver       float64
	}{
		{"top level at factor 1", Factors{7: Limited(1)}, 7, 1, true, 14400 * time.Nanosecond, 0.5},
		{"exactly at the boundary Σf = m", Factors{7: Limited(1), 6: Limited(1)}, 6, 2, true, 28800 * time.Nanosecond, 1},
		{"just past the boundary", Factors{7: Limited(1), 6: Limited(1.01)}, 6, 2.01, false, 0, 1.005},
		{"levels below do not count", Factors{7: Limited(1), 0: Limited(24)}, 7, 1, true, 14400 * time.Nanosecond, 0.5},
		{"levels above do count", Factors{7: Limited(1), 5: Limited(6)}, 5, 7, false, 0, 3.5},
		{"unconfigured levels carry nothing", Factors{7: Limited(0.5), 3: Limited(1)}, 3, 1.5, true, 21600 * time.Nanosecond, 0.75},
		{"unlimited level above removes every bound", Factors{7: Unlimited(), 0: Limited(1)}, 0, math.Inf(1), false, 0, math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			cfg.Factors = tt.factors
			got := cfg.FanIn(tt.level)
			if got.Sum != tt.wantSum && math.Abs(got.Sum-tt.wantSum) > 1e-9 {
				t.Errorf("Sum = %v, want %v", got.Sum, tt.wantSum)
			}
			if got.Guaranteed != tt.wantGuaranteed {
				t.Errorf("Guaranteed = %v, want %v", got.Guaranteed, tt.wantGuaranteed)
			}
			if got.Delay != tt.wantDelay {
				t.Errorf("Delay = %v, want %v", got.Delay, tt.wantDelay)
			}
			if got.Oversubscription != tt.wantOver && math.Abs(got.Oversubscription-tt.wantOver) > 1e-9 {
				t.Errorf("Oversubscription = %v, want %v", got.Oversubscription, tt.wantOver)
			}
		})
	}
}

func TestFanInBoundNeverExceedsEpochWhenGuaranteed(t *testing.T) {
	// The guaranteed level's bound is at most E: D = n·P·8·Σf/R + ε ≤ m·n·P·8/R + ε while Σf ≤ m.
	for _, m := range []int{1, 2, 3} {
		for _, f := range []float64{0.25, 0.5, 1, 1.5, 2, 3} {
			cfg := Config{Hosts: 60, Rate: 1.6e9, Packet: 1500, Mesochronous: m, Epsilon: time.Microsecond,
				Factors: Factors{7: Limited(f)}}
			fi := cfg.FanIn(7)
			if fi.Guaranteed != (f <= float64(m)) {
				t.Fatalf("m=%d f=%v: Guaranteed = %v", m, f, fi.Guaranteed)
			}
			if fi.Guaranteed && fi.Delay > cfg.Epoch() {
				t.Errorf("m=%d f=%v: bound %v exceeds epoch %v", m, f, fi.Delay, cfg.Epoch())
			}
		}
	}
}

func TestValidate(t *testing.T) {
	good := Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 2, Factors: DefaultFactors()}
	if err := good.Validate(); err != nil {
		t.Fatalf("valid config rejected: %v", err)
	}
	tests := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"zero hosts", func(c *Config) { c.Hosts = 0 }, "hosts"},
		{"negative hosts", func(c *Config) { c.Hosts = -3 }, "hosts"},
		{"zero rate", func(c *Config) { c.Rate = 0 }, "rate"},
		{"negative rate", func(c *Config) { c.Rate = -1 }, "rate"},
		{"NaN rate", func(c *Config) { c.Rate = Rate(math.NaN()) }, "rate"},
		{"zero packet", func(c *Config) { c.Packet = 0 }, "packet"},
		{"packet below a minimum frame", func(c *Config) { c.Packet = 63 }, "packet"},
		{"negative epsilon", func(c *Config) { c.Epsilon = -1 }, "epsilon"},
		{"zero mesochronous", func(c *Config) { c.Mesochronous = 0 }, "mesochronous"},
		{"level out of range", func(c *Config) { c.Factors = Factors{8: Limited(1)} }, "factors"},
		{"negative level", func(c *Config) { c.Factors = Factors{-1: Limited(1)} }, "factors"},
		{"factor zero", func(c *Config) { c.Factors = Factors{7: {}} }, "factors"},
		{"negative factor", func(c *Config) { c.Factors = Factors{7: Limited(-1)} }, "factors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.edit(&cfg)
			err := cfg.Validate()
			fe, ok := err.(*FieldError)
			if !ok {
				t.Fatalf("Validate() = %v, want a *FieldError", err)
			}
			if fe.Field != tt.field || fe.Allowed == "" {
				t.Errorf("FieldError = %+v, want field %q with what is allowed", fe, tt.field)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	cfg := Config{Hosts: 2, Rate: 1e9, Packet: 64, Mesochronous: 2}
	if len(cfg.Warnings()) != 1 {
		t.Errorf("P=64B: want one warning, got %q", cfg.Warnings())
	}
	cfg.Packet = 1500
	if len(cfg.Warnings()) != 0 {
		t.Errorf("P=1500B: want no warning, got %q", cfg.Warnings())
	}
}

func TestSolveOrdersLevelsHighestFirst(t *testing.T) {
	cfg := Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 2,
		Factors: Factors{0: Unlimited(), 7: Limited(1), 4: Limited(6)}}
	res, err := cfg.Solve()
	if err != nil {
		t.Fatal(err)
	}
	var got []Level
	for _, l := range res.Levels {
		got = append(got, l.Level)
	}
	if len(got) != 3 || got[0] != 7 || got[1] != 4 || got[2] != 0 {
		t.Errorf("levels = %v, want [7 4 0]", got)
	}
	if res.Levels[2].HasBudget || res.Levels[2].Rate != cfg.Rate {
		t.Errorf("unlimited level: %+v, want no budget and line rate", res.Levels[2])
	}
}

func TestCarrier(t *testing.T) {
	fs := Factors{7: Limited(1), 5: Limited(4), 2: Unlimited()}
	want := map[Level]Level{7: 7, 6: 5, 5: 5, 4: 2, 3: 2, 2: 2, 1: 2, 0: 2}
	for l, w := range want {
		if got, ok := fs.Carrier(l); !ok || got != w {
			t.Errorf("Carrier(%d) = %d, %v; want %d", l, got, ok, w)
		}
	}
	if _, ok := (Factors{}).Carrier(3); ok {
		t.Error("Carrier with no level configured: want ok = false")
	}
}
