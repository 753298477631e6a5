package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/spf13/pflag"
)

// run calls qjump with args as a user would and returns its outputs and exit status.
func run(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = Main(args, &out, &errOut)
	return out.String(), errOut.String(), status
}

// The paper's P = 1500 B, given explicitly: the equations are the same in wire bytes, and calc
// warns that a 1500-byte budget cannot carry a 1500-MTU frame (1538 B on the wire).
func TestCalcTable(t *testing.T) {
	out, errOut, status := run(t, "calc", "--hosts", "12", "--rate", "10G", "--packet", "1500B",
		"--epsilon", "0", "--mesochronous", "2", "--factors", "7=1,5=6,0=unlimited")
	if status != 0 {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	for _, want := range []string{
		"m=2", "E = m·n·P·8/R + ε = 28.8µs", "line rate at factor 24",
		"police mode: a host can send b=2 budgets of a level back to back",
		"7      1          1500B         416.7Mb/s  36000B      28.8µs (guaranteed)",
		"5      6          9000B         2.5Gb/s    -           oversubscribed ×3.5 under full fan-in",
		"0      unlimited  unlimited     10Gb/s     -           no bound",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	want := "qjump: warning: level 7: budget 1500B per epoch (f·P = 1·1500B) is smaller than the device's largest frame, " +
		"1538B on the wire: the level can never send a full-size frame\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// Without --packet, P is one full 1500-MTU frame on the wire, and the header says so.
func TestCalcDefaultPacket(t *testing.T) {
	out, errOut, status := run(t, "calc", "--hosts", "12", "--rate", "10G")
	if status != 0 || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	for _, want := range []string{
		"n=12 hosts, R=10Gb/s, P=1538B (one 1500-MTU frame on the wire), ε=0s, m=2",
		"E = m·n·P·8/R + ε = 29.53µs",
		"7      1          1538B         416.7Mb/s  36912B      29.53µs (guaranteed)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, errOut, status = run(t, "calc", "--hosts", "12", "--rate", "10G", "--packet", "1538B")
	if status != 0 || !strings.Contains(out, "P=1538B") || strings.Contains(out, "MTU") {
		t.Errorf("--packet 1538B: status %d, stderr %q; want P=1538B, not annotated as auto:\n%s", status, errOut, out)
	}
	for _, args := range [][]string{{}, {"--packet", "auto"}} {
		out, _, _ := run(t, append([]string{"calc", "--json", "--hosts", "12", "--rate", "10G"}, args...)...)
		var got calcJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.PacketBytes != 1538 || !got.PacketAuto {
			t.Errorf("%v: packet_bytes %d, packet_auto %v, %v; want 1538, true", args, got.PacketBytes, got.PacketAuto, err)
		}
	}
}

// Durations read as rates and sizes do, four significant digits in one unit: an epoch of
// 18.765µs is 18.77µs, and a bound of hours is "4h", never Go's "4h0m0s" (nor the epoch_text
// that repeats it in JSON); epoch_ns stays exact.
func TestCalcDurationsInOneUnit(t *testing.T) {
	out, _, status := run(t, "calc", "--hosts", "12", "--rate", "10G", "--epsilon", "4us", "--mesochronous", "1")
	if status != 0 || !strings.Contains(out, "ε=4µs, m=1") || !strings.Contains(out, "E = m·n·P·8/R + ε = 18.77µs;") ||
		!strings.Contains(out, "33.53µs (guaranteed)") {
		t.Errorf("status %d, want ε=4µs, E = 18.77µs and a bound of 33.53µs:\n%s", status, out)
	}
	out, _, status = run(t, "calc", "--hosts", "100000", "--rate", "1M", "--packet", "9k")
	if status != 0 || !strings.Contains(out, "E = m·n·P·8/R + ε = 4h;") || !strings.Contains(out, "  4h (guaranteed)") ||
		strings.Contains(out, "0m0s") {
		t.Errorf("status %d, want E = 4h and a bound of 4h:\n%s", status, out)
	}
	out, _, _ = run(t, "calc", "--json", "--hosts", "12", "--rate", "10G", "--epsilon", "4us", "--mesochronous", "1")
	var got calcJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.EpochText != "18.77µs" || got.EpochNs != 18765 {
		t.Errorf("epoch_text %q, epoch_ns %d (%v); want 18.77µs and 18765", got.EpochText, got.EpochNs, err)
	}
}

// A --config file's autoclass is quoted as the file writes it, whether the file's mode or the
// flags' refuses it: yes reads as true, and autoclass "true" names a word the file lacks.
func TestCalcQuotesAutoclassAsWritten(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(file, []byte("hosts: 12\nrate: 10G\nmode: shape\nautoclass: yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const says = `: invalid autoclass "yes": autoclass demotes instead of dropping, so it needs mode police`
	wantUsageError(t, []string{"calc", "--config", file}, file+says)
	if err := os.WriteFile(file, []byte("hosts: 12\nrate: 10G\nautoclass: yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsageError(t, []string{"calc", "--config", file, "--mode", "shape"}, file+says)
}

// Values refused together are named where each came from: the flags as flags, the --config
// file's as its keys in a message that names the file.
func TestCalcNamesTogetherWhereEachCameFrom(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(file, []byte("hosts: 12\nrate: 10G\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file's value is quoted as the file writes it, a flag's as typed.
	if err := os.WriteFile(file+"2", []byte("hosts: 4\nrate: 10G\nfactors: {7: 1.50, 5: 0.0010}\ntarget_rate:\n  03: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsageError(t, []string{"calc", "--config", file + "2"}, file+`2: invalid factors[5] "0.0010": level 5's budget`)
	if err := os.WriteFile(file+"3", []byte("hosts: 4\nrate: 10G\ntarget_rate:\n  03: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsageError(t, []string{"calc", "--config", file + "3"}, file+`3: invalid target_rate[3] "10": its budget`)
	wantUsageError(t, []string{"calc", "--config", file + "3", "--target-rate", "3=20G"},
		`invalid --target-rate "3=20G": need at most R = 10Gb/s`)
	// A file without rate: takes it from --rate, whatever n, m and factors it gives: it was checked
	// with R = 1b/s first, and a file of hosts: 1000 refused as `invalid rate "1b/s"`.
	for name, body := range map[string]string{"h.yaml": "hosts: 1000\n", "f.yaml": "hosts: 12\nmesochronous: 100\nfactors: {7: 100}\n"} {
		path := filepath.Join(filepath.Dir(file), name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, status := run(t, "calc", "--config", path, "--rate", "10G"); status != 0 {
			t.Errorf("%q with --rate 10G: status %d, %s", body, status, errOut)
		}
	}
	wantUsageError(t, []string{"calc", "--config", filepath.Join(filepath.Dir(file), "h.yaml"), "--rate", "1"},
		`h.yaml: invalid --rate "1", hosts "1000", mesochronous "2" (the default) and packet "1538B" (the default) together`)
	// A file without rate: is refused with the --rate that gives it, not with calc's stand-in.
	near := filepath.Join(filepath.Dir(file), "near.yaml")
	if err := os.WriteFile(near, []byte("hosts: 1\nepsilon: 2399h59m59.999999s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsageError(t, []string{"calc", "--config", near, "--rate", "10G"},
		near+`: invalid --rate "10G", hosts "1", epsilon "2399h59m59.999999s", mesochronous "2" (the default) and packet "1538B" (the default) together`,
		"need ε at most 2400h − 2.461µs")
	wantUsageError(t, []string{"calc", "--config", file, "--mesochronous", "1000000000000"},
		file+`: invalid --mesochronous "1000000000000", hosts "12", rate "10G" and packet "1538B" (the default) together: they make the epoch`)
}

// What cannot work exits 2 and names the field: the three commands of issue 8 first.
func TestCalcRefusesWhatCannotWork(t *testing.T) {
	base := []string{"calc", "--hosts", "12", "--rate", "10G"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"an epoch that overflows", []string{"calc", "--hosts", "100000000", "--rate", "1"},
			[]string{`invalid --hosts "100000000", --rate "1", --mesochronous "2" (the default) and --packet "1538B" (the default) together`,
				"longer than 2400h (100 days)", "need fewer hosts (at most 351) or a faster R (at least 284.9kb/s)"}},
		{"an epoch too long for a typo in --hosts", []string{"calc", "--hosts", "10000000000000", "--rate", "10G"},
			[]string{`invalid --hosts "10000000000000", --rate "10G", --mesochronous "2" (the default)`, "together: they make the epoch m·n·P·8/R 6836h",
				"need fewer hosts (at most 3511053315994), a smaller P (at most 540B), or a faster R (at least 28.49Gb/s)"}},
		{"an epoch too long for a typo in --mesochronous", append(base, "--mesochronous", "1000000000000"),
			[]string{`invalid --hosts "12", --mesochronous "1000000000000", --rate "10G" and --packet "1538B" (the default) together`,
				"need fewer hosts (at most 7), a smaller m (at most 585175552665) or P (at most 900B), or a faster R (at least 17.09Gb/s)"}},
		{"a target rate above R", append(base, "--target-rate", "5=20G"),
			[]string{`invalid --target-rate "5=20G": need at most R = 10Gb/s`}},
		{"a target below one frame per epoch", append(base, "--target-rate", "5=1b"),
			[]string{`invalid --target-rate "5=1b":`, "budget would be 1B per epoch", "84B", "need at least 22.49Mb/s"}},
		{"a target rate as typed, not as it reads", append(base, "--target-rate", "7=1G, 5=10"),
			[]string{`invalid --target-rate "5=10": its budget would be 1B per epoch E = 29.53µs`}},
		{"a factor as typed", append(base, "--factors", "7=1,5=1e20"),
			[]string{`invalid --factors "5=1e20": need a factor of at most`}},
		{"a factor whose budget rounds to 0", append(base, "--factors", "7=0.0001"),
			[]string{"--factors", `"7=0.0001"`, "budget f·P = 0B", "need a factor of at least 0.05462"}},
		{"a factor whose budget is below one minimum frame", append(base, "--factors", "7=1,3=0.05"),
			[]string{"--factors", `"3=0.05"`, "budget f·P = 76B", "84B"}},
		{"an epsilon that overflows the epoch", append(base, "--epsilon", "2401h"),
			[]string{`invalid --epsilon "2401h": the epoch m·n·P·8/R + ε would be longer than 2400h: need ε at most 2399h`}},
		{"an epsilon that overflows the epoch with the rest", append(base, "--epsilon", "2399h59m59.99999s"),
			[]string{`invalid --hosts "12", --rate "10G", --epsilon "2399h59m59.99999s", --mesochronous "2" (the default) and --packet "1538B" (the default) together`,
				"they make the epoch m·n·P·8/R + ε 2401h, longer than 2400h (100 days): need ε at most 2399h, or a shorter m·n·P·8/R (29.53µs now)"}},
		// It was refused as an epoch that rounds to nothing, with "P (at least -9223372036854775808B)"
		// and "more hosts (at least 2031859557867359924387840)" (review, helper-84).
		{"a rate beyond any link", []string{"calc", "--hosts", "12", "--rate", "99999999999999999999999999999T"},
			[]string{`invalid --rate "99999999999999999999999999999T": need at most 1000Tb/s (10^15 b/s)`}},
		{"a rate just beyond the model's", []string{"calc", "--hosts", "1", "--rate", "2000T", "--packet", "84", "--mesochronous", "1"},
			[]string{`invalid --rate "2000T": need at most 1000Tb/s`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantUsageError(t, tt.args, tt.want...) })
	}
	// What the messages offer works.
	for _, args := range [][]string{
		{"calc", "--hosts", "100000000", "--rate", "284.9k"},
		{"calc", "--hosts", "1", "--rate", "1000T", "--packet", "84", "--mesochronous", "1"},
		append(base, "--target-rate", "5=10G"),
		append(base, "--target-rate", "5=22.49M"),
		append(base, "--factors", "7=0.05462"),
	} {
		if _, errOut, status := run(t, args...); status != 0 {
			t.Errorf("%v: status %d, %s", args, status, errOut)
		}
	}
}

func TestCalcPaperCases(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantEpoch int64
		level     int
		wantF     float64
		wantRate  float64
	}{
		{"12 hosts 10G m=2", []string{"--hosts", "12", "--rate", "10G", "--packet", "1500B", "--factors", "7=1"}, 28800, 7, 1, 416.67e6},
		{"12 hosts 10M m=2 (Mininet timeq)", []string{"--hosts", "12", "--rate", "10M", "--packet", "1500B", "--factors", "7=1"}, 28800000, 7, 1, 416.67e3},
		{"12 hosts 10G m=2, P one 1500-MTU frame on the wire", []string{"--hosts", "12", "--rate", "10G", "--factors", "7=1"}, 29530, 7, 1, 416.66e6},
		{"144 hosts 9kB m=1", []string{"--hosts", "144", "--rate", "10Gb/s", "--packet", "9k", "--mesochronous", "1", "--factors", "0=144"}, 1036800, 0, 144, 10e9},
		{"memcached target 5G (§6.5)", []string{"--hosts", "12", "--rate", "10Gbit", "--packet", "1500B", "--mesochronous", "1", "--target-rate", "5=5G"}, 14400, 5, 6, 5e9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, status := run(t, append([]string{"calc", "--json"}, tt.args...)...)
			if status != 0 {
				t.Fatalf("status %d, stderr %q", status, errOut)
			}
			var got calcJSON
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("bad JSON %v:\n%s", err, out)
			}
			if got.EpochNs != tt.wantEpoch {
				t.Errorf("epoch_ns = %d, want %d", got.EpochNs, tt.wantEpoch)
			}
			l := findLevel(t, got, tt.level)
			if l.Factor == nil || math.Abs(*l.Factor-tt.wantF) > 1e-9 {
				t.Errorf("level %d factor = %v, want %v", tt.level, l.Factor, tt.wantF)
			}
			if math.Abs(l.RateBps-tt.wantRate)/tt.wantRate > 1e-3 {
				t.Errorf("level %d rate = %v, want %v", tt.level, l.RateBps, tt.wantRate)
			}
		})
	}
}

func findLevel(t *testing.T, c calcJSON, level int) calcLevelOut {
	t.Helper()
	for _, l := range c.Levels {
		if l.Level == level {
			return l
		}
	}
	t.Fatalf("level %d missing from %+v", level, c.Levels)
	return calcLevelOut{}
}

// threeLevelCalc is calc --json, decoded, for 12 hosts at 10 Gb/s with a guaranteed level 7, an
// oversubscribed level 5 and an unlimited level 0.
func threeLevelCalc(t *testing.T) map[string]any {
	t.Helper()
	out, _, status := run(t, "calc", "--json", "--hosts", "12", "--rate", "10G", "--factors", "7=1,5=6,0=unlimited")
	if status != 0 {
		t.Fatalf("calc: status %d", status)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestCalcJSONNullsWhatDoesNotExist(t *testing.T) {
	raw := threeLevelCalc(t)
	// That every field docs/cli.md promises is there: TestCLIDocNamesCalcFields.
	levels := raw["levels"].([]any)
	top, over, unlimited := levels[0].(map[string]any), levels[1].(map[string]any), levels[2].(map[string]any)
	// The default P is 1538 B and police mode's b = 2: 2·n·P·8/R = 29.5296 µs, rounded up.
	if raw["mode"] != "police" || raw["burst_budgets"] != 2.0 {
		t.Errorf("mode %v, burst_budgets %v; want police and 2", raw["mode"], raw["burst_budgets"])
	}
	if top["guaranteed"] != true || top["fan_in_delay_ns"] != 29530.0 || top["budget_bytes"] != 1538.0 ||
		top["port_burst_bytes"] != 36912.0 {
		t.Errorf("level 7: %v", top)
	}
	if over["guaranteed"] != false || over["fan_in_delay_ns"] != nil || over["oversubscription"] != 3.5 {
		t.Errorf("level 5: %v", over)
	}
	if unlimited["factor"] != nil || unlimited["budget_bytes"] != nil || unlimited["unlimited"] != true ||
		unlimited["fan_in_factor_sum"] != nil {
		t.Errorf("unlimited level 0: %v", unlimited)
	}
}

func TestCalcBadInput(t *testing.T) {
	base := []string{"calc", "--hosts", "12", "--rate", "10G"}
	tests := []struct {
		name string
		args []string
		want []string // every one must appear in the single error line
	}{
		{"zero hosts", []string{"calc", "--hosts", "0", "--rate", "10G"}, []string{"--hosts", `"0"`, "at least 1"}},
		{"negative hosts", []string{"calc", "--hosts", "-4", "--rate", "10G"}, []string{"--hosts", `"-4"`, "at least 1"}},
		{"hosts not a number", []string{"calc", "--hosts", "twelve", "--rate", "10G"}, []string{"--hosts", "twelve"}},
		{"zero rate", []string{"calc", "--hosts", "12", "--rate", "0"}, []string{"--rate", `"0"`, "bits per second"}},
		{"negative rate", []string{"calc", "--hosts", "12", "--rate", "-10G"}, []string{"--rate", "-10G", "bits per second"}},
		{"rate in bytes", []string{"calc", "--hosts", "12", "--rate", "10GB/s"}, []string{"--rate", "10GB/s", "10Gb/s"}},
		{"malformed rate", []string{"calc", "--hosts", "12", "--rate", "fast"}, []string{"--rate", "fast"}},
		{"zero packet", append(base, "--packet", "0"), []string{`--packet "0"`, "84B"}},
		{"negative packet", append(base, "--packet", "-1500"), []string{"--packet", "-1500", "bytes"}},
		{"packet below one minimum frame on the wire", append(base, "--packet", "83"), []string{`--packet "83"`, "84B"}},
		{"packet neither auto nor a size", append(base, "--packet", "full"), []string{"--packet", "full", "auto"}},
		{"fractional packet", append(base, "--packet", "1.5"), []string{"--packet", "1.5", "whole number"}},
		{"level out of range", append(base, "--factors", "8=1"), []string{"--factors", "8=1", "0 (lowest) to 7"}},
		{"factor zero", append(base, "--factors", "7=0"), []string{"--factors", "7=0", "greater than 0"}},
		{"factor negative", append(base, "--factors", "7=-1"), []string{"--factors", "7=-1", "greater than 0"}},
		{"malformed factors", append(base, "--factors", "7"), []string{"--factors", "LEVEL=VALUE"}},
		{"target rate level out of range", append(base, "--target-rate", "9=5G"), []string{"--target-rate", "9=5G"}},
		{"target rate malformed", append(base, "--target-rate", "5=lots"), []string{"--target-rate", "5=lots"}},
		{"level in factors and target rate", append(base, "--factors", "5=2", "--target-rate", "5=5G"), []string{"level 5", "both"}},
		{"malformed epsilon", append(base, "--epsilon", "4"), []string{"--epsilon", `"4"`, "unit"}},
		{"zero mesochronous", append(base, "--mesochronous", "0"), []string{"--mesochronous", "at least 1"}},
		{"fractional mesochronous", append(base, "--mesochronous", "1.5"), []string{`invalid --mesochronous "1.5": need a whole number, at least 1`}},
		{"fractional hosts", []string{"calc", "--rate", "10G", "--hosts", "12.5"}, []string{`invalid --hosts "12.5": need a whole number of hosts, at least 1`}},
		{"hosts not a number", []string{"calc", "--rate", "10G", "--hosts", "abc"}, []string{`invalid --hosts "abc": need a whole number of hosts`}},
		{"unknown flag", append(base, "--hostz", "3"), []string{"unknown flag", "--hostz"}},
		{"missing hosts", []string{"calc", "--rate", "10G"}, []string{"hosts"}},
		{"stray argument", append(base, "extra"), []string{"extra"}},
		{"unknown verb", []string{"calculate"}, []string{"unknown command", "calculate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantUsageError(t, tt.args, tt.want...) })
	}
}

// wantUsageError runs qjump with args and checks what every bad command line must give: exit
// status 2, nothing on stdout, and one line on stderr that says each of says.
func wantUsageError(t *testing.T, args []string, says ...string) {
	t.Helper()
	out, errOut, status := run(t, args...)
	if status != 2 {
		t.Errorf("status = %d, want 2 (stderr %q)", status, errOut)
	}
	if out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
	if strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr is not one line: %q", errOut)
	}
	for _, w := range says {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr %q lacks %q", errOut, w)
		}
	}
}

func TestCalcWarnsOnSmallPacket(t *testing.T) {
	out, errOut, status := run(t, "calc", "--hosts", "12", "--rate", "10G", "--packet", "1000")
	if status != 0 || !strings.Contains(out, "network epoch") {
		t.Fatalf("status %d, out %q", status, out)
	}
	if !strings.Contains(errOut, "warning: level 7: budget 1000B") || !strings.Contains(errOut, "1538B on the wire") {
		t.Errorf("stderr %q: want a warning about the small packet", errOut)
	}
}

// A factor above the line-rate factor is allowed (tests make budgets large with it), but calc
// shows the rate the link allows and warns, rather than print a rate faster than the link.
func TestCalcCapsRateAtLink(t *testing.T) {
	out, errOut, status := run(t, "calc", "--hosts", "12", "--rate", "10G", "--factors", "7=30,0=unlimited")
	if status != 0 {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	if strings.Contains(out, "12.5Gb/s") || !strings.Contains(out, "10Gb/s (capped at R)") {
		t.Errorf("table:\n%s\nwant level 7's rate as 10Gb/s (capped at R), never 12.5Gb/s", out)
	}
	if !strings.Contains(errOut, "warning: level 7: factor 30 gives 12.5Gb/s") || !strings.Contains(errOut, "R=10Gb/s") ||
		!strings.Contains(errOut, "link caps") {
		t.Errorf("stderr %q: want a warning naming level 7, 12.5Gb/s and R", errOut)
	}
	out, _, _ = run(t, "calc", "--json", "--hosts", "12", "--rate", "10G", "--factors", "7=30,0=unlimited")
	var got calcJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if l := got.Levels[0]; l.RateBps != 10e9 || !l.RateCapped || len(got.Warnings) != 1 {
		t.Errorf("JSON level 7: rate %v capped %v, warnings %q; want 10e9, true and one warning", l.RateBps, l.RateCapped, got.Warnings)
	}
}

func TestCalcTargetRateReplacesDefaultFactor(t *testing.T) {
	// Without --factors the defaults (7=1, 0=unlimited) apply; a target rate for level 7 replaces
	// the default rather than clashing with it.
	out, errOut, status := run(t, "calc", "--json", "--hosts", "12", "--rate", "10G", "--packet", "1500B", "--target-rate", "7=833.3333M")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	var got calcJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if l := findLevel(t, got, 7); l.Factor == nil || math.Abs(*l.Factor-2) > 1e-6 {
		t.Errorf("level 7 factor = %v, want 2", l.Factor)
	}
}

// Every flag calc has, the next one added too, is in its help with a line that explains it:
// a list of names here could not tell a flag without a word (review, helper-86).
func TestCalcHelpExplainsEveryFlag(t *testing.T) {
	out, _, status := run(t, "calc", "--help")
	if status != 0 {
		t.Fatalf("status %d", status)
	}
	for _, want := range []string{"Examples:", "E   = m·n·P·8/R + ε"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	newCalcCommand(nil).Flags().VisitAll(func(f *pflag.Flag) {
		if len(strings.Fields(f.Usage)) < 3 {
			t.Errorf("--%s: usage %q does not explain it", f.Name, f.Usage)
		}
		if !strings.Contains(out, "--"+f.Name) {
			t.Errorf("help lacks --%s", f.Name)
		}
	})
}

func TestCalcOptions(t *testing.T) {
	got := parseOptions(t, newCalcCommand, "--hosts", "12", "--rate", "10G")
	if got.model.cfg.Hosts != 12 || got.model.cfg.Rate != 10e9 || got.changed("factors") || got.json || got.configFile != "" {
		t.Errorf("parsed %+v", got)
	}
	// What the flags leave out is config.Default()'s model.
	def := config.Default().Model
	if c := got.model.cfg; c.Packet != def.Packet || c.Mesochronous != def.Mesochronous || c.Epsilon != def.Epsilon ||
		len(c.Factors) != len(def.Factors) {
		t.Errorf("defaults %+v, want config.Default()'s %+v", c, def)
	}
	if got := parseOptions(t, newCalcCommand, "--hosts", "2", "--rate", "1G", "--factors", "7=2", "--json"); !got.changed("factors") || !got.json {
		t.Errorf("--factors --json parsed as %+v", got)
	}
	if got := parseOptions(t, newCalcCommand, "--config", "q.yaml"); got.configFile != "q.yaml" || got.changed("hosts") {
		t.Errorf("--config parsed as %+v", got)
	}
}

// --mode shape counts one budget per host at m = 2 (token buckets of (m−1)·f·P), so the same level's
// bound is half police mode's; a mode that does not exist is refused, naming the two that do.
func TestCalcMode(t *testing.T) {
	out, errOut, status := run(t, "calc", "--hosts", "12", "--rate", "10G", "--mode", "shape")
	if status != 0 || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	for _, want := range []string{
		"shape mode: a host can send b=1 budget of a level back to back",
		"7      1          1538B         416.7Mb/s  18456B      14.77µs (guaranteed)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	_, errOut, status = run(t, "calc", "--hosts", "12", "--rate", "10G", "--mode", "drop")
	if status != 2 || !strings.Contains(errOut, `invalid --mode "drop": need police or shape`) {
		t.Errorf("--mode drop: status %d, stderr %q; want 2 and what is allowed", status, errOut)
	}
}

// Every flag's bad value is one line in the house style, `invalid --FLAG "VALUE": what is
// allowed`, never pflag's "invalid argument" nor strconv's "invalid syntax".
func TestFlagValueErrorsNameFlagAndValue(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"up", "--dev", "eth0", "--vlan-id", "x"}, `invalid --vlan-id "x": need a whole number`},
		{[]string{"sim", "fct", "--flows", "1e3"}, `invalid --flows "1e3": need a whole number`},
		{[]string{"probe", "client", "--interval", "4"}, `invalid --interval "4": need a duration with a unit`},
		{[]string{"probe", "memcached", "--get-ratio", "most"}, `invalid --get-ratio "most": need a number`},
		{[]string{"calc", "--hosts", "12", "--rate", "10G", "--json=maybe"}, `invalid --json "maybe": need true or false`},
	} {
		_, errOut, _ := run(t, c.args...)
		if strings.Contains(errOut, "strconv") || strings.Contains(errOut, "invalid argument") {
			t.Errorf("qjump %s: %q leaks the parser's error", strings.Join(c.args, " "), errOut)
		}
		wantUsageError(t, c.args, c.want)
	}
}

// TestCalcConfig: calc --config reads a configuration file as up does, its model and its mode,
// with the flags given over its keys; what the file lacks or gets wrong is named where it is.
func TestCalcConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, yaml string) string {
		t.Helper()
		path := dir + "/" + name
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	file := write("q.yaml", "hosts: 12\nrate: 10G\nmode: shape\nfactors: {7: 1, 0: unlimited}\ntarget_rate: {5: 5G}\n")
	same := func(name string, withFile, withFlags []string) {
		t.Helper()
		a, aErr, aStatus := run(t, withFile...)
		b, bErr, bStatus := run(t, withFlags...)
		if aStatus != 0 || bStatus != 0 || a != b || a == "" {
			t.Errorf("%s: %v gave (%d) %q %q;\n%v gave (%d) %q %q; want the same table", name,
				withFile, aStatus, a, aErr, withFlags, bStatus, b, bErr)
		}
	}
	flags := []string{"calc", "--hosts", "12", "--factors", "7=1,0=unlimited", "--target-rate", "5=5G"}
	same("the file", []string{"calc", "--config", file},
		append(flags, "--rate", "10G", "--mode", "shape"))
	same("flags over the file", []string{"calc", "--config", file, "--rate", "40G", "--mode", "police", "--json"},
		append(flags, "--rate", "40G", "--mode", "police", "--json"))

	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"a file without the model", []string{"calc", "--config", write("nomodel.yaml", "factors: {7: 1}\n")},
			"the model needs --hosts and --rate (or hosts: and rate: in --config)"},
		{"a file's value, named by its key", []string{"calc", "--config", file, "--rate", "1G"},
			file + `: invalid target_rate[5] "5G": need at most R = 1Gb/s`},
		{"a flag's value, named by its flag", []string{"calc", "--config", file, "--hosts", "0"},
			`invalid --hosts "0"`},
		{"a file that is not there", []string{"calc", "--config", dir + "/none.yaml"}, dir + "/none.yaml"},
		{"a file that is not YAML", []string{"calc", "--config", write("notyaml.yaml", "this is { not: yaml\n")},
			`notyaml.yaml: invalid key "this is { not": no such key at line 1`},
		{"a YAML syntax error", []string{"calc", "--config", write("syntax.yaml", "hosts: 2\nrate: 1G\n  bad: x\n")},
			`syntax.yaml: invalid YAML "mapping values are not allowed in this context": a syntax error at or just after line 3`},
		// The one missing is named, not both.
		{"no hosts", []string{"calc", "--rate", "10G"}, "the model needs --hosts (or hosts: in --config)"},
		{"no rate", []string{"calc", "--hosts", "2"}, "the model needs --rate (or rate: in --config)"},
	} {
		out, errOut, status := run(t, tc.args...)
		if status != 2 || out != "" || !strings.Contains(errOut, tc.says) {
			t.Errorf("%s: %v gave (%d) %q %q, want status 2 and %q", tc.name, tc.args, status, out, errOut, tc.says)
		}
	}
}

// TestCalcNotesAFileWithoutAgentSection: calc takes a file without an agent: section, which up
// and reload take too, with the same table as the flags give; it notes on stderr that qjump agent
// would refuse the file and what to add, so that a cluster file whose section was forgotten is
// caught when it is checked, not when every agent refuses it. A file with the section gets no note.
func TestCalcNotesAFileWithoutAgentSection(t *testing.T) {
	dir := t.TempDir()
	plain, cluster := dir+"/plain.yaml", dir+"/cluster.yaml"
	for path, body := range map[string]string{plain: "hosts: 12\nrate: 10G\n", cluster: "hosts: 12\nrate: 10G\nagent: {interfaces: [eth0]}\n"} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, _, _ := run(t, "calc", "--hosts", "12", "--rate", "10G")
	note := plain + ` has no agent: section: up and reload take it as it is; qjump agent would refuse it until one ` +
		`names the interfaces, e.g. "agent: {interfaces: [eth0]}"`
	for _, args := range [][]string{{"calc", "--config", plain}, {"calc", "--config", plain, "--json"}} {
		out, errOut, status := run(t, args...)
		if status != 0 || !strings.Contains(errOut, "qjump: note: "+note) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q; want 0 and one line noting %q", args, status, errOut, note)
		}
		if args[len(args)-1] != "--json" && out != want {
			t.Errorf("%v: table %q, want the flags' %q", args, out, want)
		}
	}
	if _, errOut, status := run(t, "calc", "--config", cluster); status != 0 || errOut != "" {
		t.Errorf("a file with an agent: section: status %d, stderr %q; want 0 and nothing to note", status, errOut)
	}
}

// A rate without a unit is read as bits per second, from a flag as from a file, and calc says so
// the same way for both (up, reload and the agent too); with its unit there is nothing to say.
func TestCalcWarnsOfARateWithoutUnit(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/bare.yaml"
	if err := os.WriteFile(file, []byte("hosts: 2\nrate: 25\ntarget_rate: {5: 5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		says []string
	}{
		{[]string{"calc", "--hosts", "2", "--rate", "25"}, []string{`--rate "25" has no unit: read as 25b/s`, "e.g. 25G for 25 Gb/s"}},
		{[]string{"calc", "--hosts", "2", "--rate", "25G", "--target-rate", "5=1000000000"},
			[]string{`--target-rate level 5 "1000000000" has no unit: read as 1Gb/s`}},
		// the level as --target-rate read it, not as typed: 05 and +7 are levels 5 and 7
		{[]string{"calc", "--hosts", "2", "--rate", "25G", "--target-rate", "05=1000000000, +7 = 2000000000"},
			[]string{`--target-rate level 5 "1000000000" has no unit`, `--target-rate level 7 "2000000000" has no unit`}},
		{[]string{"calc", "--config", file},
			[]string{file + `: rate "25" has no unit: read as 25b/s`, file + `: target_rate[5] "5" has no unit`}},
	} {
		_, errOut, status := run(t, tc.args...)
		for _, s := range tc.says {
			if status != 0 || !strings.Contains(errOut, "qjump: warning: ") || !strings.Contains(errOut, s) {
				t.Errorf("%v: status %d, stderr %q; want 0 and a warning saying %q", tc.args, status, errOut, s)
			}
		}
	}
	if _, errOut, _ := run(t, "calc", "--hosts", "2", "--rate", "25G"); strings.Contains(errOut, "no unit") {
		t.Errorf("--rate 25G: %q, want no unit warning", errOut)
	}
}

// A file's vlan_id that its mark does not use is warned about by calc as by up and reload: calc
// is where a cluster file is checked before it ships (docs/configuration.md), and it said nothing.
func TestCalcWarnsOfAFilesUnusedVLANID(t *testing.T) {
	dir := t.TempDir()
	for body, warns := range map[string]bool{
		"hosts: 12\nrate: 10G\nvlan_id: 5\n":             true,
		"hosts: 12\nrate: 10G\nvlan_id: 5\nmark: none\n": true,
		"hosts: 12\nrate: 10G\nvlan_id: 5\nmark: pcp\n":  false,
		"hosts: 12\nrate: 10G\n":                         false,
	} {
		file := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(file, []byte(body+"agent: {interfaces: [eth0]}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, status := run(t, "calc", "--config", file)
		got := strings.Contains(errOut, "qjump: warning: vlan_id 5 does nothing with mark")
		if status != 0 || got != warns {
			t.Errorf("%q: status %d, stderr %q; want 0, and a warning of vlan_id: %v", body, status, errOut, warns)
		}
		out, _, _ := run(t, "calc", "--config", file, "--json")
		if inJSON := strings.Contains(out, "vlan_id 5 does nothing"); inJSON != warns {
			t.Errorf("%q --json: warning in its warnings %v, want %v", body, inJSON, warns)
		}
	}
}

// A --config that names no file is bad input naming the flag and the path, as any bad value is:
// it said "read config: open x: no such file or directory", naming neither.
func TestCalcConfigThatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ path, says string }{
		{filepath.Join(dir, "none.yaml"), "no such file or directory"},
		{dir, "is a directory"},
	} {
		_, errOut, status := run(t, "calc", "--config", c.path)
		want := fmt.Sprintf("invalid --config %q: %s; need a configuration file's path", c.path, c.says)
		if status != exitUsage || errOut != "qjump: "+want+"\n" {
			t.Errorf("--config %s: status %d, stderr %q; want 2 and %q", c.path, status, errOut, want)
		}
	}
}

// A level's RATE is what its budget sends: at P = 84B and a 1.613µs epoch, factor 1.99 is a budget
// of 167B, 828.3 Mb/s, where f·P·8/E printed 829.1 Mb/s; and a factor solved for a target rate
// still reaches it once its budget is whole bytes (review, helper-84).
func TestCalcRateIsTheBudgets(t *testing.T) {
	out, errOut, status := run(t, "calc", "--hosts", "12", "--rate", "10G", "--packet", "84", "--factors", "7=1.99,0=unlimited", "--json")
	var got calcJSON
	if err := json.Unmarshal([]byte(out), &got); status != 0 || err != nil {
		t.Fatalf("status %d, %v, stderr %q", status, err, errOut)
	}
	want := 167 * 8 / 1613e-9
	if l := findLevel(t, got, 7); l.BudgetBytes == nil || *l.BudgetBytes != 167 || math.Abs(l.RateBps-want) > 1 || l.RateText != "828.3Mb/s" {
		t.Errorf("level 7: budget %v, rate %v (%s); want 167B at %.0fb/s, 828.3Mb/s", l.BudgetBytes, l.RateBps, l.RateText, want)
	}
	out, errOut, status = run(t, "calc", "--hosts", "12", "--rate", "10G", "--target-rate", "5=5G,3=10G", "--json")
	if err := json.Unmarshal([]byte(out), &got); status != 0 || err != nil {
		t.Fatalf("status %d, %v, stderr %q", status, err, errOut)
	}
	if l := findLevel(t, got, 5); l.RateBps < 5e9 || l.RateText != "5Gb/s" || *l.BudgetBytes != 18457 {
		t.Errorf("--target-rate 5=5G: rate %v (%s), budget %v; want at least 5Gb/s, 18457B", l.RateBps, l.RateText, *l.BudgetBytes)
	}
	if l := findLevel(t, got, 3); l.RateBps != 10e9 || l.RateCapped || len(got.Warnings) != 0 {
		t.Errorf("--target-rate 3=10G: rate %v, capped %v, warnings %q; want R, not capped, no warning", l.RateBps, l.RateCapped, got.Warnings)
	}
}

// Like flags are taken and refused alike (review, helper-84): spaces around a whole number as
// around a rate (--hosts " 12" was refused, --rate " 10G " taken); a rate that is none told the
// range the dataplane takes, 8b/s up, as --rate 1 is (it said "at least 1"); an exponent in a
// duration named as what is wrong (--epsilon 1e3ns was told it needs a unit); an empty factors
// table refused whether written "factors:" or "factors: {}" (the first read as the default).
func TestCalcTakesAndRefusesAlike(t *testing.T) {
	want, _, _ := run(t, "calc", "--hosts", "12", "--rate", "10G", "--mesochronous", "2")
	if out, errOut, status := run(t, "calc", "--hosts", " 12", "--rate", " 10G ", "--mesochronous", "2 "); status != 0 || out != want {
		t.Errorf(`--hosts " 12" --mesochronous "2 ": status %d, %s; want the table of 12 hosts`, status, errOut)
	}
	base := []string{"calc", "--hosts", "12"}
	wantUsageError(t, append(base, "--rate", "0"), `invalid --rate "0": need a number of bits per second from 8b/s to 1000Tb/s`)
	wantUsageError(t, append(base, "--rate", "1"), `invalid --rate "1": need at least 8b/s`)
	wantUsageError(t, append(base, "--rate", "5."), `invalid --rate "5.": need at least 8b/s`)
	wantUsageError(t, append(base, "--rate", "10G", "--epsilon", "1e3ns"),
		`invalid --epsilon "1e3ns": need a number without an exponent and a unit, e.g. 1000ns or 1us for 1e3ns`)
	dir := t.TempDir()
	for _, body := range []string{"hosts: 12\nrate: 10G\nfactors:\n", "hosts: 12\nrate: 10G\nfactors: {}\n"} {
		file := filepath.Join(dir, "f.yaml")
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		wantUsageError(t, []string{"calc", "--config", file}, file+`: invalid factors "`, "need at least one level")
	}
}

// The epoch in the header is rounded up, as the bounds are: 176,947ns read 176.9µs above a level-7
// bound of 177µs equal to it (review, helper-84).
func TestCalcEpochReadsAsItsBound(t *testing.T) {
	out, errOut, status := run(t, "calc", "--hosts", "12", "--rate", "10G", "--epsilon", "147417ns", "--factors", "7=1")
	if status != 0 || !strings.Contains(out, "E = m·n·P·8/R + ε = 177µs;") || !strings.Contains(out, "  177µs (guaranteed)") {
		t.Errorf("status %d, %s; want E = 177µs and a bound of 177µs:\n%s", status, errOut, out)
	}
	out, _, _ = run(t, "calc", "--json", "--hosts", "12", "--rate", "10G", "--epsilon", "147417ns")
	var got calcJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.EpochNs != 176947 || got.EpochText != "177µs" {
		t.Errorf("epoch_ns %d, epoch_text %q (%v); want 176947 and 177µs", got.EpochNs, got.EpochText, err)
	}
}

// The --config file and the flags are merged first and the result validated once, as
// docs/configuration.md says flags override the file: a flag may fix or replace a file's value
// (review, helper-84: each of these was refused with the file's value). A refusal still names the
// value where it came from.
func TestCalcFlagsFixTheFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body+"agent: {interfaces: [eth0]}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	shape := write("sh2.yaml", "hosts: 12\nrate: 10G\nmode: shape\nautoclass: true\n")
	small := write("f001.yaml", "hosts: 12\nrate: 10G\nfactors: {7: 1, 5: 0.01, 0: unlimited}\n")
	both := write("both.yaml", "hosts: 12\nrate: 10G\nfactors: {7: 1, 5: 0.01, 0: unlimited}\ntarget_rate: {5: 5G}\n")
	huge := write("huge.yaml", "hosts: 10000000000000\nrate: 1G\n")
	none := write("h0.yaml", "hosts: 0\nrate: 10G\n")
	for _, c := range []struct {
		args    []string
		solved5 bool // level 5 is solved for 5Gb/s
	}{
		{[]string{"--config", shape, "--mode", "police"}, false},
		{[]string{"--config", small, "--target-rate", "5=5G"}, true},
		{[]string{"--config", small, "--factors", "7=1,0=unlimited"}, false},
		{[]string{"--config", both}, true},
		{[]string{"--config", huge, "--hosts", "12", "--rate", "10G"}, false},
		{[]string{"--config", none, "--hosts", "12"}, false},
	} {
		out, errOut, status := run(t, append([]string{"calc"}, c.args...)...)
		if status != 0 || !strings.Contains(out, "network epoch") {
			t.Errorf("calc %v: status %d, %s", c.args, status, errOut)
		}
		if c.solved5 && !strings.Contains(out, "5      12.0007    18457B        5Gb/s") {
			t.Errorf("calc %v: level 5 not solved for 5Gb/s:\n%s", c.args, out)
		}
	}
	// What no flag fixes is refused, named where it came from.
	wantUsageError(t, []string{"calc", "--config", shape}, shape+`: invalid autoclass "true": autoclass demotes instead of dropping`)
	wantUsageError(t, []string{"calc", "--config", small}, small+`: invalid factors[5] "0.01": level 5's budget`)
	wantUsageError(t, []string{"calc", "--config", none}, none+`: invalid hosts "0": need a whole number of hosts, at least 1`)
	wantUsageError(t, []string{"calc", "--config", huge, "--rate", "10G"}, huge+`: invalid --rate "10G", hosts "10000000000000"`)
	wantUsageError(t, []string{"calc", "--config", shape, "--mode", "police", "--hosts", "0"}, `invalid --hosts "0"`)
}

// calc models the cluster's MTU and marking as up resolves them from its device (the same path,
// forDevice): it assumed MTU 1500 untagged, so packet auto on a jumbo-frame cluster gave bounds
// 5.9 times too small, up --mark pcp's P of 1542B needed a file, and shape mode's frame term
// counted 1538B under --packet 9038B (review, helper-84). The header says which frame P is.
func TestCalcMTUAndMark(t *testing.T) {
	calc := func(args ...string) calcJSON {
		t.Helper()
		out, errOut, status := run(t, append([]string{"calc", "--json", "--hosts", "12", "--rate", "10G"}, args...)...)
		var got calcJSON
		if err := json.Unmarshal([]byte(out), &got); status != 0 || err != nil {
			t.Fatalf("%v: status %d, %v, %s", args, status, err, errOut)
		}
		return got
	}
	for _, c := range []struct {
		args          []string
		mtu           int
		mark          string
		packet, frame int64
		header        string
	}{
		{nil, 1500, "dscp", 1538, 1538, "P=1538B (one 1500-MTU frame on the wire), ε"},
		{[]string{"--mtu", "9000"}, 9000, "dscp", 9038, 9038, "P=9038B (one 9000-MTU frame on the wire), ε"},
		{[]string{"--mark", "pcp"}, 1500, "pcp", 1542, 1542, "P=1542B (one 1500-MTU frame on the wire, tagged for mark pcp), ε"},
		{[]string{"--mtu", " 9000", "--mark", "both"}, 9000, "both", 9042, 9042, "P=9042B (one 9000-MTU frame on the wire, tagged for mark both)"},
		{[]string{"--mtu", "9000", "--packet", "1538B"}, 9000, "dscp", 1538, 9038, "P=1538B (largest frame 9038B: MTU 9000), ε"},
		{[]string{"--packet", "9038B"}, 1500, "dscp", 9038, 1538, "P=9038B, ε"},
	} {
		got := calc(c.args...)
		if got.MTU != c.mtu || got.Mark != c.mark || got.PacketBytes != c.packet || got.MaxFrameBytes != c.frame {
			t.Errorf("%v: mtu %d, mark %s, packet %d, largest frame %d; want %d, %s, %d, %d", c.args, got.MTU, got.Mark,
				got.PacketBytes, got.MaxFrameBytes, c.mtu, c.mark, c.packet, c.frame)
		}
		out, _, _ := run(t, append([]string{"calc", "--hosts", "12", "--rate", "10G"}, c.args...)...)
		if !strings.Contains(out, c.header) {
			t.Errorf("%v: header lacks %q:\n%s", c.args, c.header, out)
		}
	}
	// The same P, epoch, largest frame and solved budget as up on a device of that MTU, that mark.
	for _, mtu := range []int{1500, 9000} {
		args := []string{"--hosts", "12", "--rate", "10G", "--mark", "pcp", "--target-rate", "5=5G"}
		d, err := upOnMTU(t, mtu, append([]string{"--dev", "eth0"}, args...))
		if err != nil {
			t.Fatal(err)
		}
		got := calc(append(args, "--mtu", fmt.Sprint(mtu))...)
		b5, _ := d.Model.Budget(d.Model.Factors[5])
		if got.PacketBytes != int64(d.Model.Packet) || got.EpochNs != d.Model.Epoch().Nanoseconds() ||
			got.MaxFrameBytes != int64(d.Model.MaxFrame) || *findLevel(t, got, 5).BudgetBytes != int64(b5) {
			t.Errorf("MTU %d: calc P %d, epoch %dns, frame %d; up %v, %v, %v", mtu, got.PacketBytes, got.EpochNs,
				got.MaxFrameBytes, d.Model.Packet, d.Model.Epoch(), d.Model.MaxFrame)
		}
	}
	// Shape mode's bucket holds a whole frame of the device: 9038B a host at MTU 9000, whatever P.
	shaped := []string{"--packet", "9038B", "--mode", "shape", "--factors", "7=0.5,0=unlimited"}
	if l := findLevel(t, calc(append(shaped, "--mtu", "9000")...), 7); l.PortBurstBytes == nil || *l.PortBurstBytes != 12*9038 {
		t.Errorf("shape mode at MTU 9000, f7 = 0.5 of 9038B: port burst %v, want 12·9038B", l.PortBurstBytes)
	}
	// A file's mark is the file's, unless --mark says otherwise.
	file := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(file, []byte("hosts: 12\nrate: 10G\nmark: pcp\nagent: {interfaces: [eth0]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := calc("--config", file); got.PacketBytes != 1542 || got.Mark != "pcp" {
		t.Errorf("a file of mark: pcp: P %d, mark %s; want 1542, pcp", got.PacketBytes, got.Mark)
	}
	if got := calc("--config", file, "--mark", "dscp"); got.PacketBytes != 1538 || got.Mark != "dscp" {
		t.Errorf("--mark dscp over a file of mark: pcp: P %d, mark %s; want 1538, dscp", got.PacketBytes, got.Mark)
	}
	for _, mtu := range []string{"67", "65536", "jumbo", "1500.5"} {
		wantUsageError(t, []string{"calc", "--hosts", "12", "--rate", "10G", "--mtu", mtu},
			fmt.Sprintf(`invalid --mtu %q: need an MTU in bytes from 68 to 65535`, mtu))
	}
	wantUsageError(t, []string{"calc", "--hosts", "12", "--rate", "10G", "--mark", "red"}, `invalid --mark "red": need dscp, pcp, both or none`)
}

// --epsilon says what ε must hold as docs/model.md's "What D counts" does: per switch hop the
// processing delay and one largest frame (strict priority does not preempt a frame begun), and the
// host link's frame time; it said "cumulative switch processing delay" alone (review, helper-84).
func TestEpsilonHelpSaysWhatDLeavesOut(t *testing.T) {
	usage := newCalcCommand(nil).Flags().Lookup("epsilon").Usage
	for _, want := range []string{"processing delay", "largest frame", "does not preempt", "host link", `"What D counts"`} {
		if !strings.Contains(usage, want) {
			t.Errorf("--epsilon's help %q lacks %q", usage, want)
		}
	}
	doc, err := os.ReadFile("../../docs/model.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "\n## What D counts\n") {
		t.Error(`docs/model.md has no section "What D counts", which --epsilon's help names`)
	}
}
