package model

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	good := map[string]Rate{
		"10G": 10e9, "10Gbit": 10e9, "10Gb/s": 10e9, "10Gbps": 10e9, "10Gbit/s": 10e9,
		"100M": 100e6, "100Mbit": 100e6, "2.5G": 2.5e9, "1000": 1000, "1000bps": 1000,
		"9.6k": 9600, "9.6kbit": 9600, "1T": 1e12, " 10G ": 10e9,
		// tc's lowercase spellings
		"10gbit": 10e9, "1gbit": 1e9, "100mbit": 100e6, "100kbit": 100e3, "1tbit": 1e12, "10g": 10e9, "10gbit/s": 10e9,
	}
	for in, want := range good {
		got, err := ParseRate(in)
		if err != nil || math.Abs(float64(got-want)) > 1e-6*float64(want) {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "0G", "-1G", "G", "10GB/s", "10GB", "10gB", "10MB", "10X", "10Gib", "1e9", "10 G b", "ten", ".", "10G/m"} {
		if got, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseBytes(t *testing.T) {
	good := map[string]Bytes{
		"1500": 1500, "1500B": 1500, "9k": 9000, "9K": 9000, "9kB": 9000, "9KB": 9000, "9KiB": 9216,
		"64KiB": 65536, "1MiB": 1 << 20, "1.5k": 1500, "1M": 1e6, "0": 0, "1500bytes": 1500,
	}
	for in, want := range good {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "1.0001k", "9kb", "9Kb", "B", "9X", "9 KiB B", "1e3"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseDuration(t *testing.T) {
	good := map[string]time.Duration{
		"4us": 4 * time.Microsecond, "4µs": 4 * time.Microsecond, "4μs": 4 * time.Microsecond,
		"1.05ms": 1050 * time.Microsecond, "0": 0, "500ns": 500, "2s": 2 * time.Second,
		"1.5us": 1500, "+2ns": 2, "1m0.5s": 60500 * time.Millisecond,
	}
	for in, want := range good {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "4", "-4us", "4 parsecs", "us"} {
		if got, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", in, got)
		}
	}
	// Exponent notation is not read, and said so: "need a duration with a unit" told 1e3ns it
	// lacked the unit it has (review, helper-84).
	for _, in := range []string{"1e3ns", "1.5E-3s", "+2e1us"} {
		if _, err := ParseDuration(in); err == nil || !strings.Contains(err.Error(), "without an exponent") {
			t.Errorf("ParseDuration(%q) = %v; want an error saying exponents are not read", in, err)
		}
	}
	if _, err := ParseDuration("4"); err == nil || strings.Contains(err.Error(), "exponent") {
		t.Errorf("ParseDuration(\"4\") = %v; want the unit asked for, no exponent named", err)
	}
	// Finer than a nanosecond: Go's parser drops it, and --epsilon 0.5ns was 0 without a word.
	for _, in := range []string{"0.5ns", "1.0005us", "2.0000000001s"} {
		if got, err := ParseDuration(in); err == nil || !strings.Contains(err.Error(), "whole number of nanoseconds") {
			t.Errorf("ParseDuration(%q) = %v, %v; want an error asking for whole nanoseconds", in, got, err)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{Rate(10e9).String(), "10Gb/s"},
		{Rate(416.6667e6).String(), "416.7Mb/s"},
		{Rate(69.444e6).String(), "69.44Mb/s"},
		{Rate(5e9).String(), "5Gb/s"},
		{Rate(999).String(), "999b/s"},
		{Bytes(1500).String(), "1500B"},
		{Bytes(9000).String(), "9000B"},
		{Bytes(180000).String(), "180kB"},
		{Bytes(1296000).String(), "1.296MB"},
		{FormatDuration(28800 * time.Nanosecond), "28.8µs"},
		{FormatDuration(1036800 * time.Nanosecond), "1.0368ms"},
		{FormatDuration(28800 * time.Microsecond), "28.8ms"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestParseFactors(t *testing.T) {
	fs, err := ParseFactors("7=1,5=6, 0=unlimited,3=0.5")
	if err != nil {
		t.Fatal(err)
	}
	want := Factors{7: Limited(1), 5: Limited(6), 0: Unlimited(), 3: Limited(0.5)}
	if fs.String() != want.String() || len(fs) != 4 {
		t.Errorf("ParseFactors = %v, want %v", fs, want)
	}
	if back, err := ParseFactors(fs.String()); err != nil || back.String() != fs.String() {
		t.Errorf("round trip of %v gave %v, %v", fs, back, err)
	}
	for _, in := range []string{"", "7", "8=1", "-1=1", "7=0", "7=-2", "7=x", "7=1,7=2", "a=1", "7=inf", "7=NaN", "7=1_0", "7=0x1p4"} {
		if got, err := ParseFactors(in); err == nil {
			t.Errorf("ParseFactors(%q) = %v, want an error", in, got)
		}
	}
}

// A message prints a duration in one unit with four significant digits, not in Go's format
// ("1h22m1.6s", "2400h0m0.00002953s"); what it says is at most is rounded down, and a value it
// says is over a limit rounded up.
func TestDurationText(t *testing.T) {
	tests := []struct{ got, want string }{
		{DurationText(0), "0s"},
		{DurationText(84 * time.Nanosecond), "84ns"},
		{DurationText(999 * time.Nanosecond), "999ns"},
		{DurationText(29530 * time.Nanosecond), "29.53µs"},
		{DurationText(999960 * time.Nanosecond), "1ms"}, // rounded into the next unit
		{DurationText(1036800 * time.Nanosecond), "1.037ms"},
		{DurationText(24608 * time.Millisecond), "24.61s"},
		{DurationText(time.Second), "1s"},
		{DurationText(3599 * time.Second), "3599s"},
		{DurationText(4921600 * time.Millisecond), "1.367h"},
		{DurationText(MaxEpoch), "2400h"},
		{DurationText(MaxEpoch + 29530), "2400h"},
		{DurationAtMost(1036800 * time.Nanosecond), "1.036ms"},
		{DurationAtMost(MaxEpoch - 98432*time.Millisecond), "2399h"},
		{DurationAtMost(MaxEpoch), "2400h"},
		{DurationAtMost(7199 * time.Second), "1.999h"},
		{BoundText(14762 * time.Nanosecond), "14.77µs"}, // DurationText: 14.76µs, under the bound
		{BoundText(29530 * time.Nanosecond), "29.53µs"},
		{durationAbove(MaxEpoch.Seconds() + 1), "2401h"},
		{durationAbove(1.23e18), "341700000000000h"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// The fuzz targets check that the parsers never panic, and that what the formatters print reads
// back as (nearly) the same value: "print them back the same way".

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"10G", "10Gbit", "10Gb/s", "100M", "1.5kbps", "0", "-1", "1e9", "Gb/s", "9.99999T"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if !(r > 0) || math.IsInf(float64(r), 0) {
			t.Fatalf("ParseRate(%q) accepted %v", s, r)
		}
		back, err := ParseRate(r.String())
		if err != nil {
			t.Fatalf("ParseRate(%q) = %v whose String %q does not parse: %v", s, r, r.String(), err)
		}
		if math.Abs(float64(back-r)) > 5e-4*float64(r) {
			t.Fatalf("%q: %v printed as %q reads back as %v", s, r, r.String(), back)
		}
	})
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"1500", "1500B", "9k", "9KiB", "1.5MiB", "0", "-3", "1.2", "99999", "123456789"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBytes(s)
		if err != nil {
			return
		}
		if b < 0 {
			t.Fatalf("ParseBytes(%q) accepted %v", s, b)
		}
		back, err := ParseBytes(b.String())
		if err != nil {
			t.Fatalf("ParseBytes(%q) = %v whose String %q does not parse: %v", s, b, b.String(), err)
		}
		exact := b < 100_000
		if exact && back != b || !exact && math.Abs(float64(back-b)) > 5e-4*float64(b) {
			t.Fatalf("%q: %v printed as %q reads back as %v", s, b, b.String(), back)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"4us", "4µs", "1.05ms", "0", "4", "-1s", "1h2m3.5s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			return
		}
		if back, err := ParseDuration(FormatDuration(d)); err != nil || back != d {
			t.Fatalf("%q: %v printed as %q reads back as %v, %v", s, d, FormatDuration(d), back, err)
		}
	})
}

// A rate without a unit reads as bits per second (tc's reading, and how status --json writes R),
// and is said to be one, with the spelling that says which was meant.
func TestUnitlessRate(t *testing.T) {
	want := `rate "25" has no unit: read as 25b/s, bits per second; write the unit to say which, e.g. 25G for 25 Gb/s, 25b for bits`
	if got := UnitlessRate("rate", "25"); got != want {
		t.Errorf("rate 25: %q, want %q", got, want)
	}
	// A number this large is meant as bits: the fix it suggests is that rate with its unit, not
	// 10000000000G, which no link has.
	want = `--rate "10000000000" has no unit: read as 10Gb/s, bits per second; write the unit to say so, e.g. 10Gb/s, or 10000000000b`
	if got := UnitlessRate("--rate", " 10000000000 "); got != want {
		t.Errorf("rate 10000000000: %q, want %q", got, want)
	}
	for _, s := range []string{"25G", "25b", "10gbit", "1000bps", "", "0", "ten", "10GB"} {
		if got := UnitlessRate("rate", s); got != "" {
			t.Errorf("rate %q: %q, want no warning (a unit, or no rate at all)", s, got)
		}
	}
}
