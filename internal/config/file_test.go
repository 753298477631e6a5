package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/qjump-net/qjump/internal/model"
)

// documentedExample is the annotated YAML example of docs/configuration.md.
func documentedExample(t testing.TB) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "```yaml\n")
	example, _, _ := strings.Cut(rest, "```")
	return example
}

// TestDocumentedExampleLoads keeps docs/configuration.md honest: its annotated example must load
// and mean what its comments say.
func TestDocumentedExampleLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qjump.yaml")
	if err := os.WriteFile(path, []byte(documentedExample(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d, err = d.Solved(); err != nil {
		t.Fatal(err)
	}
	if d.Model.Hosts != 12 || d.Model.Rate != 10e9 || d.DSCP[7] != 46 || d.PriorityLevels[6] != 7 ||
		d.PriorityLevels[0] != Unclassified || d.Mode != Police || d.Mark != MarkDSCP || !d.AutoPacket {
		t.Errorf("example loaded as %+v", d)
	}
	// epsilon differs from its default, so a loader that ignored it fails here; the factors must
	// come through beside the level that target_rate adds.
	if d.Model.Epsilon != 4*time.Microsecond || d.Model.Factors[7] != model.Limited(1) || !d.Model.Factors[0].Unlimited {
		t.Errorf("example loaded epsilon %v, factors %v; want 4µs, 7=1, 0=unlimited", d.Model.Epsilon, d.Model.Factors)
	}
	if f := d.Model.Factors[5]; f.Unlimited || d.Model.LevelRate(f) < 4.99e9 || d.Model.LevelRate(f) > 5.01e9 {
		t.Errorf("target_rate 5: 5G solved to factor %v, rate %v", f, d.Model.LevelRate(f))
	}
}

// TestRoundTrip: what status prints (ToFile) reads back as the same configuration.
func TestRoundTrip(t *testing.T) {
	d := Default()
	d.Model.Hosts, d.Model.Rate, d.Model.Epsilon = 7, 2.5e9, 1234
	d.Model.Factors = model.Factors{7: model.Limited(1.25), 3: model.Limited(1.0 / 3), 0: model.Unlimited()}
	d.Mode, d.Mark, d.VLANID, d.DefaultLevel, d.DSCP[2], d.PCP[6], d.PriorityLevels[9] = Shape, MarkBoth, 12, 3, 10, 1, 4
	d.AutoPacket = false // ToFile writes P as resolved, a size
	y, err := yaml.Marshal(ToFile(d))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("round trip", y)
	if err != nil {
		t.Fatal(err)
	}
	got := Default()
	if err := f.Apply(&got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("round trip:\n%s\ngot  %+v\nwant %+v", y, got, d)
	}
}

// TestBadValues: every bad value is refused with one line that names its key as the file writes
// it (vlan_id, not the flag's vlan-id; factors[7], the level's own key).
func TestBadValues(t *testing.T) {
	cases := []struct{ yaml, field string }{
		{"hosts: 0\nrate: 1G\n", "hosts"},
		{"rate: fast\n", "rate"},
		{"rate: 0\n", "rate"},
		{"hosts: 12\nrate: 1\n", "rate"},
		{"hosts: 12\nrate: 2000T\n", "rate"},
		{"packet: 10B\n", "packet"},
		{"packet: 83B\n", "packet"},
		{"packet: lots\n", "packet"},
		{"factors: {7: 0.05}\n", "factors[7]"},
		{"hosts: 100000000\nrate: 1\n", "hosts"},
		{"epsilon: -1s\n", "epsilon"},
		{"factors: {8: 1}\n", "factors"},
		{"factors: {3: 0}\n", "factors[3]"},
		{"target_rate: {3: x}\n", "target_rate[3]"},
		{"mode: fast\n", "mode"},
		{"mark: red\n", "mark"},
		{"vlan_id: 4095\n", "vlan_id"},
		{"default_level: 8\n", "default_level"},
		{"priority_levels: {16: 1}\n", "priority_levels"},
		{"priority_levels: {3: 9}\n", "priority_levels[3]"},
		{"dscp: {1: 64}\n", "dscp[1]"},
		{"pcp: {1: 8}\n", "pcp[1]"},
		{"mode: shape\nautoclass: true\n", "autoclass"},
		{"hosts: [1\n", "YAML"},
		{"colour: blue\n", "key"},
	}
	for _, tc := range cases {
		err := applyError(tc.yaml)
		var fe *model.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want a one-line field error on %q", tc.yaml, err, tc.field)
		}
	}
}

// A value of the wrong kind is refused in the file's words, naming the key, the value as written
// and what the key takes, never the Go type decoding would have named ("cannot unmarshal !!str
// `12` into int"); the refusal starts with the file's name, as every other refusal of a file does.
func TestWrongKindOfValueNamesTheKey(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"hosts: \"12\"\n", `invalid hosts "12": need a whole number, written without quotes`},
		{"hosts: 99999999999999999999\n", `invalid hosts "99999999999999999999": need a whole number of at most 9223372036854775807`},
		{"hosts: 12\nrate: 10G\nhosts: 13\n", `invalid hosts "given at lines 1 and 3": need each key once`},
		{"hosts: 1.9\n", `invalid hosts "1.9": need a whole number`},
		{"hosts: [1]\n", `invalid hosts "a list": need a whole number`},
		{"rate: [1, 2]\n", `invalid rate "a list": need one value, such as 10G`},
		{"mode: {a: 1}\n", `invalid mode "a table": need one value, such as police or shape`},
		{"autoclass: maybe\n", `invalid autoclass "maybe": need true or false`},
		{"factors: 5\n", `invalid factors "5": need a table`},
		{"factors:\n  7: [1]\n", `invalid factors[7] "a list": need one value, such as 1 or unlimited`},
		{"dscp:\n  7: '4'\n", `invalid dscp[7] "4": need a whole number, written without quotes`},
		{"hosts: -9223372036854775809\n", `invalid hosts "-9223372036854775809": need a whole number of at least -9223372036854775808`},
		{"dscp:\n  <<: [{7: 56}, {6: x}]\n", `invalid dscp[6] "x": need a whole number`},
		// A factors table of no levels, whether "factors:" with nothing or "factors: {}": the first
		// read as the default 7: 1, 0: unlimited, the second was refused (review, helper-84).
		{"hosts: 12\nfactors:\n", `invalid factors "": need at least one level, such as {7: 1, 0: unlimited}; leave factors out for that default`},
		{"hosts: 12\nfactors: {}\n", `invalid factors "{}": need at least one level, such as {7: 1, 0: unlimited}; leave factors out for that default`},
		{"factors: ~\n", `invalid factors "~": need at least one level`},
	}
	for _, tc := range cases {
		_, err := Parse("c.yaml", []byte(tc.yaml))
		if err == nil || !strings.HasPrefix(err.Error(), "c.yaml: "+tc.want) || strings.Contains(err.Error(), "unmarshal") {
			t.Errorf("%q: %v; want it to start %q", tc.yaml, err, "c.yaml: "+tc.want)
		}
	}
	// What decoding takes is still taken: YAML 1.1's booleans, hex, and a key left empty.
	for _, ok := range []string{"autoclass: yes\n", "autoclass: off\n", "hosts: 0x10\n", "hosts:\nrate: 10G\n", "target_rate:\n",
		"hosts: &n 12\nmesochronous: *n\n", "hosts: !!int \"12\"\n",
		// A merge key brings a table's entries in, overridden by the table's own (review, helper-55).
		"dscp:\n  <<: {7: 56, 6: 48}\n  5: 40\n", "factors: {<<: {7: 1, 0: unlimited}, 7: 2}\n"} {
		if _, err := Parse("c.yaml", []byte(ok)); err != nil {
			t.Errorf("%q: %v; want it taken", ok, err)
		}
	}
}

// TestAgentSectionIgnored: one cluster file serves `qjump agent` and `qjump up`; up skips the
// agent's own section but still refuses any other unknown key.
func TestAgentSectionIgnored(t *testing.T) {
	f, err := Parse("t", []byte("hosts: 3\nrate: 1G\nagent:\n  interfaces: [eth0]\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if err := f.Apply(&d); err != nil || d.Model.Hosts != 3 {
		t.Fatalf("apply: %v, hosts %d", err, d.Model.Hosts)
	}
	if _, err := Parse("t", []byte("hosts: 3\nagents: {}\n")); err == nil {
		t.Error("a misspelt agent section was accepted")
	}
}

// TestHashIsCanonical: the hash follows what runs, not how the file spells it.
func TestHashIsCanonical(t *testing.T) {
	load := func(y string) Dataplane {
		t.Helper()
		f, err := Parse("t", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		d := Default()
		if err := f.Apply(&d); err != nil {
			t.Fatal(err)
		}
		if d, err = d.Solved(); err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := load("hosts: 4\nrate: 1G\n")
	b := load("rate: 1G\nhosts: 4\nmode: police\nfactors: {7: 1, 0: unlimited}\nagent: {listen: ':1'}\n")
	c := load("hosts: 5\nrate: 1G\n")
	if Hash(a) != Hash(b) {
		t.Errorf("same configuration spelt two ways hashes %s and %s", Hash(a), Hash(b))
	}
	if Hash(a) == Hash(c) || len(Hash(a)) != 16 {
		t.Errorf("hosts 4 and 5 hash %s and %s; want two different 16-digit hashes", Hash(a), Hash(c))
	}
}

// Whatever YAML a user writes, Parse and Apply refuse it with an error or give a configuration
// that, solved as up solves it, status writes (Marshal) and reads back as the same one.
func FuzzFileRoundTrip(f *testing.F) {
	for _, s := range []string{documentedExample(f), "hosts: 4\nrate: 10G\nfactors: {7: 1, 0: unlimited}\n",
		"hosts: 3\nrate: 1G\nfactors: {7: 1, 3: 0.3333}\ntarget_rate: {5: 100M}\nmode: shape\n",
		"hosts: 2\nrate: 100M\npacket: 9k\nepsilon: 1.5us\nfactors: {0: unlimited}\nmark: both\nvlan_id: 7\n",
		"hosts: -1", "rate: NaN", "factors: {9: 1}", "packet: auto", "epsilon: 1h", "priority_levels: {3: 7, 300: 1}",
		"dscp: {7: 64}", "hosts: 1e9\nrate: 1\nfactors: {7: 1e300}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		file, err := Parse("fuzz", in)
		if err != nil {
			return
		}
		d := Default()
		if file.Apply(&d) != nil {
			return
		}
		if d, err = d.ResolvePacket(1500); err != nil {
			return
		}
		if d, err = d.Solved(); err != nil {
			return
		}
		y, err := Marshal(d)
		if err != nil {
			t.Fatalf("%q: solved, but Marshal: %v", in, err)
		}
		back, err := Parse("marshalled", y)
		if err != nil {
			t.Fatalf("%q: its own YAML\n%s\ndoes not parse: %v", in, y, err)
		}
		got := Default()
		if err := back.Apply(&got); err != nil {
			t.Fatalf("%q: its own YAML\n%s\nis refused: %v", in, y, err)
		}
		if Hash(got) != Hash(d) {
			t.Fatalf("%q: read back as another configuration:\n%s\ngot  %+v\nwant %+v", in, y, got, d)
		}
	})
}

// FileKey names a field as a file writes it; what is not a field error passes unchanged.
func TestFileKey(t *testing.T) {
	cases := []struct{ field, value, wantField, wantValue string }{
		{"target-rate", "5=50Gb/s", "target_rate[5]", "50Gb/s"},
		{"factors", "7=2", "factors[7]", "2"},
		{"factors", "", "factors", ""},
		{"vlan-id", "5000", "vlan_id", "5000"},
		{"default-level", "9", "default_level", "9"},
		{"rate", "1b/s", "rate", "1b/s"},
		{"dscp[1]", "64", "dscp[1]", "64"},
	}
	for _, tc := range cases {
		err := FileKey(fmt.Errorf("wrapped: %w", &model.FieldError{Field: tc.field, Value: tc.value, Allowed: "x"}))
		var fe *model.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.wantField || fe.Value != tc.wantValue {
			t.Errorf("FileKey(%s %q) = %v, want %s %q", tc.field, tc.value, err, tc.wantField, tc.wantValue)
		}
	}
	if other := errors.New("disk on fire"); FileKey(other) != other || FileKey(nil) != nil {
		t.Error("FileKey changed an error that names no field")
	}
}

// Values a file gives that only together are out of range are each named as the file writes
// them, those it leaves to the default said to be the default's: an epoch too long named rate
// alone ("invalid rate"), whatever made it.
func TestTogetherNamesEveryKey(t *testing.T) {
	f, err := Parse("t", []byte("hosts: 10000000000000\nrate: 10G\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	err = f.Apply(&d)
	want := `invalid hosts "10000000000000", rate "10G", mesochronous "2" (the default) and packet "1538B" (the default) together: ` +
		`they make the epoch m·n·P·8/R 6836h, longer than 2400h (100 days)`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want it to start %s", err, want)
	}
	// A value is quoted as the file writes it, not as it reads.
	for yaml, want := range map[string]string{
		"factors: {7: 1.50, 5: 0.0010}\n":      `invalid factors[5] "0.0010": level 5's budget`,
		"hosts: 4\nrate: 1k\nepsilon: 2400h\n": `invalid epsilon "2400h": the epoch m·n·P·8/R + ε would be longer than 2400h: need ε at most 2399h`,
		// A rate beyond any link is refused alone, as written; ε too long with the rest is every
		// input together.
		"hosts: 1\nrate: 2000T\npacket: 84\nmesochronous: 1\n": `invalid rate "2000T": need at most 1000Tb/s (10^15 b/s)`,
		"hosts: 1000000\nmesochronous: 4\nrate: 10G\nepsilon: 2399h59m58s\n": `invalid hosts "1000000", mesochronous "4", rate "10G", ` +
			`epsilon "2399h59m58s" and packet "1538B" (the default) together: they make the epoch m·n·P·8/R + ε 2401h, longer than 2400h`,
	} {
		if err := applyError(yaml); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", yaml, err, want)
		}
	}
	// FileKey renames every field of such an error, as it does one.
	err = FileKey(&model.FieldError{Field: "vlan-id", Value: "1", Allowed: "x",
		Together: []model.Input{{Field: "vlan-id", Value: "1"}, {Field: "target-rate", Value: "5=1G", From: "the default"}}})
	if want := `invalid vlan_id "1" and target_rate[5] "1G" (the default) together: x`; err.Error() != want {
		t.Errorf("FileKey: %v, want %s", err, want)
	}
}

// A file that gives no rate is checked with a stand-in, one P per µs from each host; a refusal
// that names the stand-in together with the file's values (ε that leaves those µs no room) waits
// for the rate a flag gives, rather than name "rate 24.61Gb/s (the default)", a rate no one gave.
func TestStandInRateIsNeverNamed(t *testing.T) {
	f, err := Parse("t", []byte("hosts: 1\nepsilon: 2399h59m59.999999s\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if err := f.Apply(&d); err != nil {
		t.Errorf("Apply: %v, want the refusal left to the rate a flag gives", err)
	}
	d.Model.Rate = 10e9 // as a flag would give it: now the refusal is the model's
	if err := d.Model.Validate(); err == nil {
		t.Error("ε within 1µs of 100 days passes with R = 10G, want it refused")
	}
	// What the file gives wrong by itself is still the file's.
	f, _ = Parse("t", []byte("hosts: 1\nepsilon: 2400h\n"))
	if err := f.Apply(&d); err == nil || !strings.Contains(err.Error(), `invalid epsilon "2400h"`) {
		t.Errorf("Apply: %v, want epsilon refused", err)
	}
}

// A key that is not one is named, with its line and the keys it is nearest to, not with yaml's
// message about a Go type.
func TestUnknownKeySaysWhichAndSuggests(t *testing.T) {
	_, err := Parse("q.yaml", []byte("hosts: 2\nrate: 1G\nfactor: {7: 1}\n"))
	want := `q.yaml: invalid key "factor": no such key at line 3: did you mean factors? (docs/configuration.md lists the keys)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "config.File") {
		t.Errorf("the message names a Go type: %v", err)
	}
}

// A line that is not YAML's key: value form is named as the key YAML reads in it, and a YAML
// syntax error as one, with the file and the line: `this is { not: yaml` used to give
// yaml's "field this is { not not found in type config.File".
func TestNotYAMLSaysWhere(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"this is { not: yaml\n",
			`q.yaml: invalid key "this is { not": no such key at line 1 (docs/configuration.md lists the keys)`},
		{"hosts: 2\nrate: 1G\n  bad: x\n",
			`q.yaml: invalid YAML "mapping values are not allowed in this context": a syntax error at or just after line 3: ` +
				`need a YAML mapping of the keys in docs/configuration.md`},
		// A document that is not a mapping at all: it was "cannot unmarshal !!seq into config.File".
		{"[1, 2]\n", `invalid config file q.yaml "a YAML list": need keys and values, one a line, such as "hosts: 12" (docs/configuration.md)`},
		{"- hosts: 4\n", `invalid config file q.yaml "a YAML list": need keys and values, one a line, such as "hosts: 12" (docs/configuration.md)`},
		// A file that is no configuration is described, never quoted, so that no secret given by
		// mistake (a token, /etc/passwd) goes into the logs (reviews, helper-98 and helper-103).
		{"hello\n", `invalid config file q.yaml "a single value of 5 characters": need keys and values, one a line, such as "hosts: 12" (docs/configuration.md)`},
		{"ghp_0123456789abcdefghijklmnopqrstuvwxyz\n", `invalid config file q.yaml "a single value of 40 characters": need keys and values, one a line, such as "hosts: 12" (docs/configuration.md)`},
		{"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
			`invalid config file q.yaml "a single value of 79 characters": need keys and values, one a line, such as "hosts: 12" (docs/configuration.md)`},
	} {
		_, err := Parse("q.yaml", []byte(tc.yaml))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "config.File") {
			t.Errorf("%q: the message names a Go type: %v", tc.yaml, err)
		}
	}
}

// autoclass is quoted as the file writes it: yes, on and True all read as true, and a refusal
// that said autoclass "true" would quote a word the file does not have.
func TestAutoclassQuotedAsWritten(t *testing.T) {
	for _, word := range []string{"yes", "on", "True", "true"} {
		f, err := Parse("t", []byte("mode: shape\nautoclass: "+word+"\n"))
		if err != nil {
			t.Fatalf("autoclass: %s: %v", word, err)
		}
		d := Default()
		err = f.Apply(&d)
		want := `invalid autoclass "` + word + `": autoclass demotes instead of dropping, so it needs mode police`
		if err == nil || err.Error() != want {
			t.Errorf("autoclass: %s with mode: shape: %v, want %s", word, err, want)
		}
	}
}

// Every key of File that validation refuses by the flags' spelling of its field is one Gives
// knows and Written quotes as the file writes it: a key added to File and not to its table
// (File.refusable) would be blamed on the default, with the value as it reads.
func TestEveryKeyIsGivenAndWritten(t *testing.T) {
	ownKeys := map[string]bool{"priority_levels": true, "dscp": true, "pcp": true, "agent": true} // refused by their own keys, or not here
	typ := reflect.TypeOf(File{})
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("yaml"), ",")
		if ownKeys[key] || !typ.Field(i).IsExported() { // unexported: what Parse keeps beside the keys
			continue
		}
		field := strings.ReplaceAll(key, "_", "-") // the flags' spelling (keyOfFlag)
		var f File
		in, want := model.Input{Field: field, Value: "as read"}, ""
		v := reflect.ValueOf(&f).Elem().Field(i)
		switch v.Kind() {
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			switch p := v.Interface().(type) {
			case *string:
				*p, want = "as written", "as written"
			case *int:
				*p, want = 7, "7"
			case *bool:
				*p, in.Value, want = true, "true", "true" // a File Parse did not read: as validation writes it
			}
		case reflect.Map:
			v.Set(reflect.ValueOf(map[string]string{"05": "as written"}))
			in.Value, want = "5=as read", "5=as written"
		}
		if new(File).Gives(field) {
			t.Errorf("an empty file gives %s", field)
		}
		if got := f.Written(in).Value; !f.Gives(field) || got != want {
			t.Errorf("a file with %s: Gives(%q) %v, Written %q; want true and %q", key, field, f.Gives(field), got, want)
		}
	}
}

// R that is no rate is told the range the dataplane takes, 8b/s to 1000Tb/s, not the parser's "at
// least 1": rate 1 was then refused with "need at least 8b/s" (review, helper-84).
func TestRateSaysTheRangeItTakes(t *testing.T) {
	for yaml, want := range map[string]string{
		"hosts: 12\nrate: 0\n":     `invalid rate "0": need a number of bits per second from 8b/s to 1000Tb/s, e.g. 10G`,
		"hosts: 12\nrate: fast\n":  `invalid rate "fast": need a number of bits per second from 8b/s to 1000Tb/s`,
		"hosts: 12\nrate: 1\n":     `invalid rate "1": need at least 8b/s`,
		"hosts: 12\nrate: 5.\n":    `invalid rate "5.": need at least 8b/s`,
		"hosts: 12\nrate: 2000T\n": `invalid rate "2000T": need at most 1000Tb/s`,
	} {
		if err := applyError(yaml); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", yaml, err, want)
		}
	}
	if r, err := ParseRate(" 10G "); err != nil || r != 10e9 {
		t.Errorf("ParseRate(\" 10G \") = %v, %v; want 10Gb/s", r, err)
	}
}

// In a file, a level's target rate replaces its factor, as docs/configuration.md says, whatever
// that factor is: factors[5] 0.01 (a budget under one frame) beside target_rate[5] 5G was refused
// as the 0.01 (review, helper-84). A factor of a level without a target rate is still judged.
func TestFilesTargetRateReplacesItsFactor(t *testing.T) {
	d, err := applied("hosts: 12\nrate: 10G\nfactors: {7: 1, 5: 0.01, 0: unlimited}\ntarget_rate: {5: 5G}\n")
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	solved, err := d.ResolvePacket(1500)
	if err == nil {
		solved, err = solved.Solved()
	}
	if r := solved.Model.LevelRate(solved.Model.Factors[5]); err != nil || r < 5e9 || r > 5.001e9 {
		t.Errorf("solved: %v, level 5 at %v; want 5Gb/s", err, r)
	}
	if err := applyError("hosts: 12\nrate: 10G\nfactors: {7: 1, 5: 0.01, 0: unlimited}\ntarget_rate: {3: 5G}\n"); err == nil ||
		!strings.Contains(err.Error(), `invalid factors[5] "0.01"`) {
		t.Errorf("factors[5] 0.01 with a target rate for level 3: %v; want it refused", err)
	}
}

// LoadValues reads the file's values without judging them, for the flags to be laid over them
// before one validation (up, reload, calc); what it cannot read is still refused, naming the key.
// LoadFile judges the file as it is.
func TestLoadValuesLeavesTheJudgingToTheWhole(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		path := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	path := write("hosts: 0\nrate: 10G\nmode: shape\nautoclass: true\nfactors: {5: 0.01}\n")
	if _, _, _, err := LoadFile(path); err == nil {
		t.Errorf("LoadFile took a file of hosts: 0")
	}
	f, d, _, err := LoadValues(path)
	if err != nil || d.Model.Hosts != 0 || !d.Autoclass || d.Mode != Shape || !f.Gives("hosts") {
		t.Errorf("LoadValues: %v, %+v; want the file's values as given", err, d)
	}
	if _, _, _, err := LoadValues(write("rate: fast\n")); err == nil || !strings.Contains(err.Error(), `c.yaml: invalid rate "fast"`) {
		t.Errorf("LoadValues of rate: fast: %v; want it refused naming the key", err)
	}
}

// applyError is what reading yaml and applying it over Default() refuses, if anything.
func applyError(yaml string) error {
	_, err := applied(yaml)
	return err
}

// applied is yaml read and applied over Default().
func applied(yaml string) (Dataplane, error) {
	d := Default()
	f, err := Parse("t", []byte(yaml))
	if err != nil {
		return d, err
	}
	return d, f.Apply(&d)
}
