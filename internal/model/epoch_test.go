package model

import (
	"math"
	"strings"
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
	// Solving and evaluating round-trip to within the byte a budget is rounded up by: 1.234 Gb/s
	// is 4442.4 bytes a 28.8µs epoch, so 4443B, 1.23417 Gb/s.
	f := cfg.FactorForRate(1.234e9)
	if r, byteRate := cfg.LevelRate(Limited(f)), 8/cfg.Epoch().Seconds(); r < 1.234e9 || float64(r) >= 1.234e9+byteRate {
		t.Errorf("LevelRate(FactorForRate(1.234G)) = %.0f, want 1.234e9 to one byte an epoch (%.0fb/s) more", r, byteRate)
	}
}

// A level's rate is what its budget delivers, the budget rounded down to a whole byte, not f·P:
// at P = 84B and a 1.613µs epoch, factor 1.99 is 167.16B, so 167B, 828.3 Mb/s, where f·P·8/E read
// 829.1 Mb/s (review, helper-84).
func TestLevelRateIsItsBudgets(t *testing.T) {
	cfg := Config{Hosts: 12, Rate: 10e9, Packet: 84, Mesochronous: 2}
	if e := cfg.Epoch(); e != 1613*time.Nanosecond {
		t.Fatalf("epoch %v, want 1.613µs", e)
	}
	f := Limited(1.99)
	if b, _ := cfg.Budget(f); b != 167 {
		t.Fatalf("budget %v, want 167B", b)
	}
	want := Rate(167 * 8 / 1613e-9)
	if r := cfg.LevelRate(f); math.Abs(float64(r-want)) > 1 {
		t.Errorf("LevelRate(1.99) = %.0f, want 167B·8/1.613µs = %.0f", r, want)
	}
	if r := cfg.BudgetRate(f); math.Abs(float64(r-want)) > 1 {
		t.Errorf("BudgetRate(1.99) = %.0f, want %.0f", r, want)
	}
}

// A factor solved for a target rate reaches it (to float error): its budget is the target's bytes per epoch rounded
// up to a whole byte, never down (5 Gb/s at 12 hosts, 10 Gb/s and P = 1538B is 18456.25B an
// epoch: 18456B read 4.99993 Gb/s), and no more than a byte over. A target of exactly R is at the
// line budget, not above it (no "capped" level, no warning).
func TestFactorForRateReachesTheTarget(t *testing.T) {
	for _, n := range []int{1, 2, 3, 12, 60, 144} {
		for _, r := range []Rate{1e6, 100e6, 1e9, 10e9, 40e9, 100e9} {
			for _, p := range []Bytes{84, 1000, 1538, 9038} {
				cfg := Config{Hosts: n, Rate: r, Packet: p, Mesochronous: 2, Epsilon: 3 * time.Microsecond}
				for _, t0 := range []Rate{r / 7, r / 3, r / 2, r * 0.9, r} {
					f := Limited(cfg.FactorForRate(t0))
					got, byteRate := cfg.LevelRate(f), Rate(8/cfg.Epoch().Seconds())
					if b, _ := cfg.Budget(f); b < MinWireFrame {
						continue // refused by CheckTargetRates
					}
					// float error in B·8/E aside (10⁻¹²)
					if got < t0*(1-1e-12) || got > t0+byteRate {
						t.Errorf("n=%d R=%v P=%v: target %v solves to factor %v, rate %.0f; want %.0f to %.0f",
							n, r, p, t0, f, got, t0, t0+byteRate)
					}
					if t0 == r && (cfg.AboveLineRate(f) || math.Abs(float64(got-r)) > float64(r)*1e-12) {
						t.Errorf("n=%d R=%v P=%v: target R solves to factor %v, above line rate %v, rate %v; want R, not above",
							n, r, p, f, cfg.AboveLineRate(f), got)
					}
				}
			}
		}
	}
	cfg := Config{Hosts: 12, Rate: 10e9, Packet: DefaultPacket, Mesochronous: 2}
	f := cfg.FactorForRate(5e9)
	if b, _ := cfg.Budget(Limited(f)); b != 18457 || f != 12.0006501951 {
		t.Errorf("5G: factor %v, budget %v; want 12.0006501951 (18457B/1538B) and 18457B", f, b)
	}
	if r := cfg.LevelRate(Limited(f)); r < 5e9 || r.String() != "5Gb/s" {
		t.Errorf("5G solved to %.0f (%v), want at least 5Gb/s", r, r)
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

// A link of 100Tb/s carries more in an epoch of 210h than an int64 counts in bytes: the line
// budget wrapped negative, the line-rate factor read -6·10^15 and level 7 at factor 1 was
// "above the link rate" with a warning saying so. Beyond whole bytes the figures are a float's;
// and a target rate whose budget no budget holds is refused as the rate given, not as a factor
// the user never wrote (review, helper-93).
func TestBudgetsBeyondAnInt64(t *testing.T) {
	c := Config{Hosts: 1, Rate: 100e12, Packet: 1538, Mesochronous: 2, Epsilon: 210 * time.Hour,
		Factors: Factors{7: Limited(1), 0: Unlimited()}, MaxFrame: 1538}
	if f := c.LineRateFactor(); !(f > 6e15) {
		t.Errorf("line-rate factor %v, want about 6.14e15", f)
	}
	if c.AboveLineRate(Limited(1)) || !c.AboveLineRate(Limited(1e16)) {
		t.Errorf("above line rate: factor 1 %v, factor 1e16 %v; want false, true", c.AboveLineRate(Limited(1)), c.AboveLineRate(Limited(1e16)))
	}
	for _, w := range c.Warnings() {
		if strings.Contains(w, "above the link rate") {
			t.Errorf("warning %q", w)
		}
	}
	err := c.CheckTargetRates(map[Level]Rate{5: 100e12})
	if err == nil || !strings.Contains(err.Error(), `target-rate "5=`) || !strings.Contains(err.Error(), "beyond what a budget holds") {
		t.Errorf("target of R with a budget beyond any: %v; want it refused as --target-rate", err)
	}
}
