package agent

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

const clusterFile = `hosts: 4
rate: 1G
factors: {7: 1, 0: unlimited}
agent:
  interfaces: [eth0, "ens*"]
  listen: ":9999"
  cgroups:
    - path: system.slice/memcached.service
      level: 5
      max_level: 5
`

func TestParseClusterFile(t *testing.T) {
	s, err := Parse("t", []byte(clusterFile))
	if err != nil {
		t.Fatal(err)
	}
	if s.Dataplane.Model.Hosts != 4 || s.Agent.Listen != ":9999" || len(s.Agent.Cgroups) != 1 ||
		*s.Agent.Cgroups[0].MaxLevel != 5 || s.Hash != config.Hash(s.Dataplane) {
		t.Errorf("parsed %+v", s)
	}
	for name, want := range map[string]bool{"eth0": true, "ens5": true, "eth1": false, "lo": false} {
		if s.Agent.Matches(name) != want {
			t.Errorf("Matches(%q) = %v, want %v", name, !want, want)
		}
	}
	if got := s.Agent.named(); len(got) != 1 || got[0] != "eth0" {
		t.Errorf("named interfaces %v, want [eth0]: a pattern is not required to match anything", got)
	}
}

// TestParseNamesTheField: the agent logs and counts a bad file by the key at fault.
func TestParseNamesTheField(t *testing.T) {
	agent := "agent: {interfaces: [eth0]}\n"
	cases := []struct{ yaml, field string }{
		{"rate: 1G\n" + agent, "hosts"},
		{"hosts: 2\n" + agent, "rate"},
		{"hosts: 2\nrate: 1G\ndscp: {7: 64}\n" + agent, "dscp[7]"},
		{"hosts: 2\nrate: 1G\ntarget_rate: {5: 2G}\n" + agent, "target_rate[5]"},
		{"hosts: 2\nrate: 1G\nvlan_id: 5000\n" + agent, "vlan_id"},
		{"this is { not: yaml\n" + agent, "key"},
		{"hosts: 2\nrate: 1G\n  bad: x\n" + agent, "YAML"},
		{"hosts: 2\nrate: 1G\n", "agent.interfaces"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: []}\n", "agent.interfaces"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [\"eth[\"]}\n", "agent.interfaces[0]"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], colour: red}\n", "key"},
		{"hosts: 2\nrate: 1G\nagent: {interfacs: [eth0]}\n", "key"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: [{path: a, level: 8}]}\n", "agent.cgroups[0].level"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: [{path: a, level: 1, max_level: -1}]}\n", "agent.cgroups[0].max_level"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: [{path: a}]}\n", "agent.cgroups[0].level"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: eth0}\n", "agent.interfaces"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], listen: [9781]}\n", "agent.listen"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: {path: a, level: 1}}\n", "agent.cgroups"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: [{path: a, level: five}]}\n", "agent.cgroups[0].level"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: [five]}\n", "agent.cgroups[0]"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], interfaces: [eth1]}\n", "agent.interfaces"},
		{"hosts: 2\nrate: 1G\nagent: [eth0]\n", "agent"},
		{"hosts: 2\nrate: 1G\nagent:\n", "agent.interfaces"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], listen: nonsense}\n", "agent.listen"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], listen: \":99999\"}\n", "agent.listen"},
		{"hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: [{path: a, level: 1}, {path: a/, level: 2}]}\n", "agent.cgroups[1].path"},
	}
	for _, tc := range cases {
		_, err := Parse("t", []byte(tc.yaml))
		var fe *model.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%q: error %v, want a field error on %q", tc.yaml, err, tc.field)
		}
	}
}

// TestWrongShapeNamesTheKey: a value of the wrong shape for any key of the agent section, or of
// one of its cgroups, is refused naming that key and the shape it needs. The keys and shapes come
// from Section's and CgroupRule's fields, so a field added to either is checked here too; a
// cgroup's keys used to be refused as the whole entry, agent.cgroups[0].
func TestWrongShapeNamesTheKey(t *testing.T) {
	// wrong is a value no field of type ft takes: text where it needs a list or a mapping, a
	// mapping where it needs text, a number or true or false.
	wrong := func(ft reflect.Type) string {
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct || ft.Kind() == reflect.Slice {
			return "oops"
		}
		return "{x: 1}"
	}
	flow := func(keys map[string]string) string {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			kv = append(kv, k+": "+keys[k])
		}
		return "{" + strings.Join(kv, ", ") + "}"
	}
	check := func(file, field string) {
		t.Helper()
		_, err := Parse("t", []byte(file))
		var fe *model.FieldError
		if !errors.As(err, &fe) || fe.Field != field || !strings.HasPrefix(fe.Allowed, "need ") {
			t.Errorf("%q: %v, want a field error on %q saying what it needs", file, err, field)
		}
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Section{})) {
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		agent := map[string]string{"interfaces": "[eth0]", key: wrong(f.Type)}
		check("hosts: 2\nrate: 1G\nagent: "+flow(agent)+"\n", "agent."+key)
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(CgroupRule{})) {
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		rule := map[string]string{"path": "a", "level": "1", key: wrong(f.Type)}
		check("hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: ["+flow(rule)+"]}\n", "agent.cgroups[0]."+key)
	}
}

// TestDocumentedFilesParse keeps the annotated examples of docs/configuration.md's agent section
// and of docs/deployment.md valid cluster files.
func TestDocumentedFilesParse(t *testing.T) {
	for doc, after := range map[string]string{"configuration.md": "## The agent's section", "deployment.md": "## 2. Write the cluster file"} {
		data, err := os.ReadFile(filepath.Join("../../docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		_, section, ok := strings.Cut(string(data), after)
		_, rest, ok2 := strings.Cut(section, "```yaml\n")
		example, _, _ := strings.Cut(rest, "```")
		if !ok || !ok2 {
			t.Fatalf("%s: no yaml example after %q", doc, after)
		}
		s, err := Parse(doc, []byte(example))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if len(s.Agent.Interfaces) < 2 || s.Agent.Listen != ":9781" || len(s.Agent.Cgroups) == 0 {
			t.Errorf("%s: example parsed as %+v", doc, s.Agent)
		}
	}
}

// Whatever a cluster file holds, Parse either accepts it, and then every interface can be given
// its configuration (ForDevice at a 1500-byte MTU), or refuses it with a *model.FieldError naming
// the key, which the agent logs and counts.
func FuzzParse(f *testing.F) {
	for _, s := range []string{clusterFile, "hosts: 4\nrate: 1G\nfactors: {7: 1}\nagent: {interfaces: [\"[\"]}\n",
		"hosts: 4\nrate: 1G\nfactors: {7: 1}\nagent: {cgroups: [{path: /, level: 9}]}\n", "agent: 3\n", "hosts: 2\n",
		"hosts: 2\nrate: 10G\nfactors: {0: unlimited}\ntarget_rate: {7: 1G}\nmark: pcp\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := Parse("fuzz", in)
		if err != nil {
			var fe *model.FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("%q: refused with %T %v, want a *model.FieldError naming the key", in, err, err)
			}
			return
		}
		if _, err := s.ForDevice(1500); err != nil {
			t.Fatalf("%q: accepted, but an interface of MTU 1500 cannot run it: %v", in, err)
		}
	})
}

// TestLastLoadRecoversAfterAReadError: the file cannot be read for a moment (a configuration
// management run replacing it), then comes back unchanged. qjump_agent_config_last_load_successful
// goes to 0 and back to 1, as the documented alert on it expects; an invalid file that comes back
// after a read error keeps it at 0.
func TestLastLoadRecoversAfterAReadError(t *testing.T) {
	// An interface pattern that matches nothing, no cgroups: should anything reconcile, it
	// touches nothing of the host the test runs on.
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n"
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	requireAgentPrivilege(t)
	a, err := New(Options{ConfigPath: path, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	lastLoad := func() float64 { return promtestutil.ToFloat64(a.m.lastLoadOK) }
	steps := []struct {
		change fileChange
		want   float64
	}{
		{fileChange{err: os.ErrNotExist}, 0},
		{fileChange{data: []byte(file)}, 1},
		{fileChange{data: []byte("hosts: 2\n")}, 0}, // invalid: no rate
		{fileChange{err: os.ErrNotExist}, 0},
		{fileChange{data: []byte("hosts: 2\n")}, 0},
	}
	for i, s := range steps {
		a.onFile(s.change)
		if got := lastLoad(); got != s.want {
			t.Errorf("step %d (%v, %q): last load successful %v, want %v", i, s.change.err, s.change.data, got, s.want)
		}
	}
	// A deleted file stays deleted while other files of its directory change: one read failure.
	readErrors := func() float64 { return promtestutil.ToFloat64(a.m.configErrors.WithLabelValues("read")) }
	before := readErrors()
	for range 5 {
		a.onFile(fileChange{err: os.ErrNotExist})
	}
	if got := readErrors() - before; got != 1 {
		t.Errorf("the same read failure five times was counted %v times, want once", got)
	}
}
