package model

import (
	"math"
	"testing"
	"time"
)

func TestEpochAndRates(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantEpoch time.Duration
		factor    Factor
		wantRate  Rate // rate at factor, to 0.1%
	}{
		{
			name:      "paper testbed, m=2",
			cfg:       Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 2},
			wantEpoch: 28800 * time.Nanosecond,
			factor:    Limited(1),
			wantRate:  416.7e6,
		},
		{
			name:      "Mininet reproduction at 10Mb/s (timeq)",
			cfg:       Config{Hosts: 12, Rate: 10e6, Packet: 1500, Mesochronous: 2},
			wantEpoch: 28800 * time.Microsecond,
			factor:    Limited(1),
			wantRate:  416.7e3,
		},
		{
			name:      "ns-2 simulation, 144 hosts, jumbo frames, m=1",
			cfg:       Config{Hosts: 144, Rate: 10e9, Packet: 9000, Mesochronous: 1},
			wantEpoch: 1036800 * time.Nanosecond,
			factor:    Limited(144),
			wantRate:  10e9,
		},
		{
			name:      "epsilon is added once",
			cfg:       Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 2, Epsilon: 4 * time.Microsecond},
			wantEpoch: 32800 * time.Nanosecond,
			factor:    Unlimited(),
			wantRate:  10e9,
		},
		{
			name:      "fractional nanoseconds round up",
			cfg:       Config{Hosts: 1, Rate: 3e9, Packet: 1000, Mesochronous: 1},
			wantEpoch: 2667 * time.Nanosecond, // 2666.67ns
			factor:    Limited(1),
			wantRate:  1000 * 8 / 2667e-9,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.Epoch(); got != tt.wantEpoch {
				t.Errorf("Epoch() = %v, want %v", got, tt.wantEpoch)
			}
			got := tt.cfg.LevelRate(tt.factor)
			if math.Abs(float64(got-tt.wantRate))/float64(tt.wantRate) > 1e-3 {
				t.Errorf("LevelRate(%v) = %v, want %v", tt.factor, got, tt.wantRate)
			}
		})
	}
}

func TestFactorForRate(t *testing.T) {
	// §6.5: n=12 at 10Gb/s, memcached's 5Gb/s gives f = 6 (the paper's f = n·T/R, so m = 1).
	cfg := Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 1}
	if f := cfg.FactorForRate(5e9); math.Abs(f-6) > 1e-9 {
		t.Errorf("FactorForRate(5G) = %v, want 6", f)
	}
	// With m = 2 the epoch doubles, so the same rate needs twice the factor.
	cfg.Mesochronous = 2
	if f := cfg.FactorForRate(5e9); math.Abs(f-12) > 1e-9 {
		t.Errorf("FactorForRate(5G) with m=2 = %v, want 12", f)
	}
	if f := cfg.LineRateFactor(); math.Abs(f-24) > 1e-9 {
		t.Errorf("LineRateFactor() with m=2 = %v, want m·n = 24", f)
	}
	// Solving and evaluating must round-trip.
	f := cfg.FactorForRate(1.234e9)
	if r := cfg.LevelRate(Limited(f)); math.Abs(float64(r)-1.234e9) > 1 {
		t.Errorf("LevelRate(FactorForRate(1.234G)) = %v", r)
	}
}

func TestBudget(t *testing.T) {
	cfg := Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 2}
	tests := []struct {
		f      Factor
		want   Bytes
		wantOK bool
	}{
		{Limited(1), 1500, true},
		{Limited(6), 9000, true},
		{Limited(0.5), 750, true},
		{Limited(1.0001), 1500, true}, // 1500.15 rounds down: never more than the model allows
		{Unlimited(), 0, false},
	}
	for _, tt := range tests {
		got, ok := cfg.Budget(tt.f)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Budget(%v) = %v, %v; want %v, %v", tt.f, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestWithTargetRates(t *testing.T) {
	cfg := Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 1, Factors: Factors{7: Limited(1), 5: Limited(2)}}
	got := cfg.WithTargetRates(map[Level]Rate{5: 5e9, 3: 2.5e9})
	if got.Factors[5].Value != 6 || got.Factors[3].Value != 3 || got.Factors[7].Value != 1 {
		t.Errorf("factors = %v, want 7=1,5=6,3=3", got.Factors)
	}
	if cfg.Factors[5].Value != 2 || len(cfg.Factors) != 2 {
		t.Errorf("the receiver changed: %v", cfg.Factors)
	}
}
