package cli

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testbed/experiment"
)

// docTables returns the fields of each table in docs/cli.md's section named heading, in order:
// the backticked names in each row's first column.
func docTables(t *testing.T, heading string) [][]string {
	t.Helper()
	data, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("docs/cli.md has no section %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	name := regexp.MustCompile("`([a-z][a-z0-9_]*)`") // p99_us too
	var tables [][]string
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			inTable = inTable && strings.HasPrefix(line, "|")
			continue
		}
		if !inTable {
			tables = append(tables, nil)
			inTable = true
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			tables[len(tables)-1] = append(tables[len(tables)-1], m[1])
		}
	}
	return tables
}

// keysOf is the sorted keys of a JSON object.
func keysOf(t *testing.T, v any) []string {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", v)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// asJSON is v encoded and decoded again, as a reader of the output sees it.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// wantDocumented fails t unless the documented fields and the keys are the same set.
func wantDocumented(t *testing.T, what string, documented, keys []string) {
	t.Helper()
	documented = slices.Clone(documented)
	slices.Sort(documented)
	if !slices.Equal(documented, keys) {
		t.Errorf("%s: docs/cli.md lists %v, the JSON has %v", what, documented, keys)
	}
}

// TestCLIDocNamesStatusFields: docs/cli.md's tables for status --json and status --watch --json
// name exactly the fields the commands write (optional ones included), object by object.
func TestCLIDocNamesStatusFields(t *testing.T) {
	dir := tempAgentStateDir(t)
	agentRuns(t, dir, "eth1") // so that the device's agent is there
	st := dataplane.Status{Device: "eth1", UpAs: "eth0", Attached: true, Attach: dataplane.AttachTCX, Generation: 2,
		Config: twoGuaranteed(t), TreeGone: "the root qdisc is noqueue 0: (the kernel's default)"}
	status := asJSON(t, newStatusJSON([]dataplane.Status{st}, nil, func(string) (int, error) { return 1500, nil }))
	tables := docTables(t, "`qjump status --json`")
	if len(tables) != 3 {
		t.Fatalf("status --json: %d tables in docs/cli.md, want 3 (the object, a device, a level)", len(tables))
	}
	device := status["devices"].([]any)[0]
	wantDocumented(t, "status --json", tables[0], keysOf(t, status))
	wantDocumented(t, "status --json, a device", tables[1], keysOf(t, device))
	wantDocumented(t, "status --json, a level", tables[2], keysOf(t, device.(map[string]any)["levels"].([]any)[0]))

	// A watch frame with rates (eth1) and one device without (eth2, new): every key appears.
	eth2 := st
	eth2.Device = "eth2"
	frame := asJSON(t, newWatchFrame([]dataplane.Status{st}, []dataplane.Status{st, eth2}, time.Second, time.Unix(0, 0)))
	tables = docTables(t, "`qjump status --watch --json`")
	if len(tables) != 3 {
		t.Fatalf("status --watch --json: %d tables in docs/cli.md, want 3", len(tables))
	}
	devices := frame["devices"].([]any)
	withRates, without := devices[0].(map[string]any), devices[1].(map[string]any)
	wantDocumented(t, "status --watch --json", tables[0], keysOf(t, frame))
	deviceKeys := append(keysOf(t, withRates), "since")
	slices.Sort(deviceKeys)
	if !slices.Equal(keysOf(t, without), deviceKeys) {
		t.Errorf("a device without rates has %v, want those with rates and since", keysOf(t, without))
	}
	wantDocumented(t, "status --watch --json, a device", tables[1], deviceKeys)
	wantDocumented(t, "status --watch --json, a level", tables[2], keysOf(t, withRates["levels"].([]any)[0]))
}

// TestCLIDocNamesCalcFields: the same for calc --json, over a configuration with a guaranteed, an
// oversubscribed and an unlimited level.
func TestCLIDocNamesCalcFields(t *testing.T) {
	calc := threeLevelCalc(t)
	tables := docTables(t, "`qjump calc --json`")
	if len(tables) != 2 {
		t.Fatalf("calc --json: %d tables in docs/cli.md, want 2 (the object, a level)", len(tables))
	}
	wantDocumented(t, "calc --json", tables[0], keysOf(t, calc))
	var levelKeys []string
	for _, l := range calc["levels"].([]any) {
		for _, k := range keysOf(t, l) {
			if !slices.Contains(levelKeys, k) {
				levelKeys = append(levelKeys, k)
			}
		}
	}
	slices.Sort(levelKeys)
	wantDocumented(t, "calc --json, a level", tables[1], levelKeys)
}

// TestCLIDocNamesAdviseFields: the same for advise --json, whose fields docs/cli.md did not list.
func TestCLIDocNamesAdviseFields(t *testing.T) {
	bound := 900.0
	p := experiment.AdvicePoint{Factor: 1, BoundUS: &bound, Guaranteed: true, Met: true}
	advice := asJSON(t, experiment.Advice{Program: "memcached", Points: []experiment.AdvicePoint{p}, Chosen: &p, Confirm: &p})
	tables := docTables(t, "`qjump advise --json`")
	if len(tables) != 2 {
		t.Fatalf("advise --json: %d tables in docs/cli.md, want 2 (the object, a point)", len(tables))
	}
	wantDocumented(t, "advise --json", tables[0], keysOf(t, advice))
	wantDocumented(t, "advise --json, a point", tables[1], keysOf(t, advice["points"].([]any)[0]))
}

// TestCLIDocNamesTestbedStatusFields: the same for testbed status --json, whose fields docs/cli.md
// did not list; qjump_hosts, what the hosts run, came beside qjump, what up enabled.
func TestCLIDocNamesTestbedStatusFields(t *testing.T) {
	running := 1
	st := testbedStatusJSON{State: testbed.State{Config: testbed.DefaultConfig(2), PID: 1, Building: true, Removing: true},
		Hosts: []testbed.HostQJump{{Host: 1, Up: true, Attached: true, Generation: 1, Mode: "shape", ConfigHash: "dfeabe6ef2a489b4",
			Error: "enter network namespace"}}, QJumpHosts: &running}
	status := asJSON(t, st)
	tables := docTables(t, "`qjump testbed status --json`")
	if len(tables) != 2 {
		t.Fatalf("testbed status --json: %d tables in docs/cli.md, want 2 (the object, a host)", len(tables))
	}
	wantDocumented(t, "testbed status --json", tables[0], keysOf(t, status))
	wantDocumented(t, "testbed status --json, a host", tables[1], keysOf(t, status["hosts"].([]any)[0]))
}
