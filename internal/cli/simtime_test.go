package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/sim"
)

// A delay is read to the picosecond, in Go's duration syntax and ps, or refused with the reason;
// nothing finer than the clock is dropped in silence.
func TestParseSimDelay(t *testing.T) {
	for _, c := range []struct {
		in   string
		want sim.Time
	}{
		{"0", 0}, {"0ns", 0}, {"1ps", 1}, {"500ps", 500}, {"0.5ns", 500}, {".5ns", 500}, {"1.5ns", 1500},
		{"0.001ns", 1}, {"200ns", 200 * sim.Nanosecond}, {"2.5us", 2500 * sim.Nanosecond},
		{"2.5µs", 2500 * sim.Nanosecond}, {"2.5μs", 2500 * sim.Nanosecond}, {"1ms500us", 1500 * sim.Microsecond},
		{" +3ns ", 3 * sim.Nanosecond}, {"1s", sim.Second}, {"0.000000000001s", 1},
	} {
		got, err := parseSimDelay(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseSimDelay(%q) = %d ps, %v; want %d ps", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"0.0001ns", "whole number of picoseconds"},
		{"1.5ps", "whole number of picoseconds"},
		{"-1us", "not a negative delay"},
		{"1.000000000001s", "from 0 to 1s"},
		{"2563h", "from 0 to 1s"}, // 9.2e18 ps: past int64, where time.Duration wrapped
		{"99999999999999999999999h", "from 0 to 1s"},
		{"5", "with a unit"}, {"ns", "with a unit"}, {"1e3ns", "with a unit"}, {"1ns2", "with a unit"},
		{"", "with a unit"}, {"-", "with a unit"}, {"1 ns", "with a unit"},
	} {
		if got, err := parseSimDelay(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseSimDelay(%q) = %d ps, %v; want an error saying %q", c.in, got, err, c.want)
		}
	}
}

// --help's defaults read as people write delays, and read back as the same delay.
func TestFormatSimTime(t *testing.T) {
	for _, c := range []struct {
		t    sim.Time
		want string
	}{
		{500, "500ps"}, {200 * sim.Nanosecond, "200ns"}, {1500, "1.5ns"}, {2500 * sim.Nanosecond, "2.5µs"},
		{1234567, "1.234567µs"}, {sim.Second, "1s"}, {sim.Second - 1, "999.999999999ms"},
	} {
		got := formatSimTime(c.t)
		back, err := parseSimDelay(got)
		if got != c.want || err != nil || back != c.t {
			t.Errorf("formatSimTime(%d) = %q, read back as %d (%v); want %q", c.t, got, back, err, c.want)
		}
	}
}

// --link-delay 0.5ns simulates 500 ps and results.json says 0.5 ns, and so does the results.json
// sim report rewrites. The flags once held whole nanoseconds, and the run simulated and recorded 0.
func TestSimFCTSubNanosecondDelays(t *testing.T) {
	flows := func(delay, dir string) []byte {
		t.Helper()
		_, errOut, status := run(t, "sim", "fct", "--scheme", "tcp", "--flows", "30", "--racks", "2", "--hosts-per-rack", "4",
			"--spines", "1", "--link-delay", delay, "--host-delay", "1.5ns", "--out", dir)
		if status != 0 {
			t.Fatalf("--link-delay %s: status %d: %s", delay, status, errOut)
		}
		b, err := os.ReadFile(filepath.Join(dir, "flows.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	half, zero := t.TempDir(), t.TempDir()
	if string(flows("0.5ns", half)) == string(flows("0", zero)) {
		t.Error("--link-delay 0.5ns simulated the same flows as 0")
	}
	fabric := func() map[string]any {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(half, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Fabric map[string]any }
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Fabric
	}
	check := func(when string) {
		t.Helper()
		if f := fabric(); f["link_delay_ns"] != 0.5 || f["host_delay_ns"] != 1.5 {
			t.Errorf("%s: fabric %v; want link_delay_ns 0.5 and host_delay_ns 1.5", when, f)
		}
	}
	check("sim fct")
	if _, errOut, status := run(t, "sim", "report", half); status != 0 {
		t.Fatalf("sim report: status %d: %s", status, errOut)
	}
	check("after sim report")
}
