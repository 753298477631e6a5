package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// DefaultListen is where the agent serves /metrics, /healthz and /readyz unless told otherwise.
const DefaultListen = ":9781"

// Section is the `agent:` part of the cluster file: what only the agent reads. Everything else in
// the file is today's format (docs/configuration.md), the same on every host.
type Section struct {
	// Interfaces are names or shell patterns (eth*, ens[0-9]*); QJump goes up on every interface
	// of this network namespace that matches one.
	Interfaces []string `yaml:"interfaces"`
	// Listen is the address of the metrics and health endpoints; --listen overrides it.
	Listen string `yaml:"listen,omitempty"`
	// Cgroups puts cgroups (services, containers) on levels, as `qjump assign` does, declaratively.
	Cgroups []CgroupRule `yaml:"cgroups,omitempty"`
}

// CgroupRule is one cgroup's level and ceiling. The ceiling holds for every cgroup below it too.
type CgroupRule struct {
	Path     string `yaml:"path"`                // absolute, or relative to the cgroup v2 root
	Level    *int   `yaml:"level"`               // priority of every new socket in the cgroup; nil: not given
	MaxLevel *int   `yaml:"max_level,omitempty"` // ceiling in the dataplane, if set
	Enforce  bool   `yaml:"enforce,omitempty"`   // refuse the programs' own SO_PRIORITY
}

// Spec is one valid cluster file, solved: what the agent runs.
type Spec struct {
	Dataplane config.Dataplane // solved at the file's P (auto: one 1500-MTU frame)
	Hash      string           // config.Hash(Dataplane): equal on hosts that run the same cluster config
	Agent     Section
	// Warnings are what `qjump calc --config` warns about the file: rates without a unit, then
	// the model's warnings at the file's P. The agent logs them as it takes the file.
	Warnings []string

	applied config.Dataplane // the file applied to the defaults, before P and target rates are solved
}

// ForDevice is the configuration an interface with this MTU runs: P resolved from the device when
// the file leaves it to the device (as qjump up does), then target rates solved in that P.
func (s Spec) ForDevice(mtu int) (config.Dataplane, error) {
	d, err := s.applied.ResolvePacket(mtu)
	if err != nil {
		return d, err
	}
	d, err = d.Solved()
	return d, config.FileKey(err)
}

// Parse reads and checks a cluster file; name is what errors call it. Every error is a
// *model.FieldError naming the key, so the agent can log and count it.
func Parse(name string, data []byte) (Spec, error) {
	f, err := config.Parse(name, data)
	if err != nil {
		return Spec{}, err // names the file already
	}
	spec, err := parseKeys(data, f)
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %w", name, err) // as config.Load names it, for up and calc
	}
	spec.Warnings = append(f.Warnings(name), spec.Dataplane.Model.Warnings()...)
	return spec, nil
}

// parseKeys is Parse's check of the keys' values, after the file's YAML is read.
func parseKeys(data []byte, f config.File) (Spec, error) {
	d := config.Default()
	if err := f.Apply(&d); err != nil {
		return Spec{}, err
	}
	if d.Model.Hosts == 0 {
		return Spec{}, &model.FieldError{Field: "hosts", Value: "", Allowed: "the cluster file must give hosts: (n)"}
	}
	if d.Model.Rate == 0 {
		return Spec{}, &model.FieldError{Field: "rate", Value: "", Allowed: "the cluster file must give rate: (R)"}
	}
	solved, err := d.Solved()
	if err != nil {
		return Spec{}, config.FileKey(err)
	}
	sec, err := parseSection(data)
	if err != nil {
		return Spec{}, err
	}
	return Spec{Dataplane: solved, Hash: config.Hash(solved), Agent: sec, applied: d}, nil
}

// Load reads the file at path (following symlinks, as a Kubernetes ConfigMap volume has them).
func Load(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("read config: %w", err)
	}
	return Parse(path, data)
}

// CheckSection checks the agent section of a file that has one, as the agent would at start and
// on an edit, for `qjump calc --config`, which checks a cluster file before it ships; a file
// without one (a plain configuration file for up) passes.
func CheckSection(name string, data []byte) error {
	var doc struct {
		Agent *yaml.Node `yaml:"agent"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Agent == nil {
		return nil // the rest of the file is config.Parse's to check
	}
	if _, err := parseSection(data); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// parseSection decodes the agent section strictly: an unknown key in it is an error, as in the
// rest of the file.
func parseSection(data []byte) (Section, error) {
	var doc struct {
		Agent *Section       `yaml:"agent"`
		Rest  map[string]any `yaml:",inline"` // the dataplane's keys, checked by config.Parse
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		if fe := config.UnknownKey(err, config.Keys{Prefix: "agent.", Struct: Section{}},
			config.Keys{Prefix: "agent.cgroups[].", Struct: CgroupRule{}}); fe != nil {
			return Section{}, fe
		}
		if fe := sectionTypeError(data); fe != nil {
			return Section{}, fe
		}
		return Section{}, &model.FieldError{Field: "agent", Value: oneLine(err.Error()),
			Allowed: "need interfaces, listen and cgroups (docs/configuration.md)"}
	}
	if doc.Agent == nil {
		return Section{}, &model.FieldError{Field: "agent.interfaces", Value: "",
			Allowed: "the agent needs an agent: section naming its interfaces, e.g. interfaces: [eth0]"}
	}
	return *doc.Agent, doc.Agent.validate()
}

// sectionTypeError names the key of the agent section whose value has the wrong shape, which
// YAML's own error does not (`interfaces: eth0`: "cannot unmarshal !!str `eth0` into []string"),
// or nil if it finds none.
func sectionTypeError(data []byte) *model.FieldError {
	var doc struct {
		Agent yaml.Node `yaml:"agent"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return nil
	}
	n := &doc.Agent
	if n.Kind != yaml.MappingNode {
		return &model.FieldError{Field: "agent", Value: n.Value,
			Allowed: "need a section with interfaces, listen and cgroups (docs/configuration.md)"}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, v := n.Content[i].Value, n.Content[i+1]
		switch key {
		case "interfaces":
			var names []string
			if v.Decode(&names) != nil {
				return &model.FieldError{Field: "agent.interfaces", Value: v.Value,
					Allowed: `need a list of interface names or patterns, e.g. [eth0, "ens*"]`}
			}
		case "listen":
			var addr string
			if v.Decode(&addr) != nil {
				return &model.FieldError{Field: "agent.listen", Value: v.Value, Allowed: "need host:port or :port, e.g. \":9781\""}
			}
		case "cgroups":
			if v.Kind != yaml.SequenceNode {
				return &model.FieldError{Field: "agent.cgroups", Value: v.Value,
					Allowed: "need a list of {path, level, max_level, enforce} entries"}
			}
			for j, c := range v.Content {
				var r CgroupRule
				if err := c.Decode(&r); err != nil {
					return &model.FieldError{Field: fmt.Sprintf("agent.cgroups[%d]", j), Value: oneLine(err.Error()),
						Allowed: "need path (a cgroup directory), level and max_level (0 to 7), enforce (true or false)"}
				}
			}
		}
	}
	return nil
}

func (s Section) validate() error {
	if s.Listen != "" {
		if err := CheckListen(s.Listen); err != nil {
			return &model.FieldError{Field: "agent.listen", Value: s.Listen, Allowed: err.Error()}
		}
	}
	if len(s.Interfaces) == 0 {
		return &model.FieldError{Field: "agent.interfaces", Value: "[]", Allowed: "need at least one name or pattern, e.g. eth0 or eth*"}
	}
	for i, p := range s.Interfaces {
		if _, err := filepath.Match(p, ""); err != nil || p == "" {
			return &model.FieldError{Field: fmt.Sprintf("agent.interfaces[%d]", i), Value: p,
				Allowed: "need an interface name or a shell pattern (*, ?, [a-z])"}
		}
	}
	seen := map[string]bool{}
	for i, c := range s.Cgroups {
		field := fmt.Sprintf("agent.cgroups[%d]", i)
		switch {
		case c.Path == "":
			return &model.FieldError{Field: field + ".path", Value: "", Allowed: "need a cgroup v2 directory"}
		case seen[filepath.Clean(c.Path)]:
			return &model.FieldError{Field: field + ".path", Value: c.Path, Allowed: "each cgroup once"}
		case c.Level == nil: // a missing level would put the cgroup on bulk without a word
			return &model.FieldError{Field: field + ".level", Value: "", Allowed: "need a level from 0 to 7 for each cgroup"}
		case !isLevel(*c.Level):
			return &model.FieldError{Field: field + ".level", Value: strconv.Itoa(*c.Level), Allowed: "need a level from 0 to 7"}
		case c.MaxLevel != nil && !isLevel(*c.MaxLevel):
			return &model.FieldError{Field: field + ".max_level", Value: strconv.Itoa(*c.MaxLevel), Allowed: "need a level from 0 to 7"}
		}
		seen[filepath.Clean(c.Path)] = true
	}
	return nil
}

func isLevel(l int) bool { return l >= 0 && l < model.NumLevels }

// CheckListen checks an address to serve the endpoints on, as agent.listen and --listen give it:
// host:port or :port, the port a number from 0 to 65535. Port 0 lets the kernel choose a free
// one, which the agent logs at start ("agent running ... listen="): for tests, and for agents side
// by side. Found at start, a bad address made the agent exit 1 on its next restart, a crash loop
// under Restart=on-failure.
func CheckListen(addr string) error {
	const allowed = "need host:port or :port with a port from 0 to 65535 (0: a free port, logged at start), " +
		"e.g. :9781 or 127.0.0.1:9781"
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New(allowed)
	}
	// ParseUint, not Atoi: "+80" and "-1" are no ports, and 16 bits hold every port.
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return errors.New(allowed)
	}
	return nil
}

// Matches says whether the interface name is one the section asks for.
func (s Section) Matches(name string) bool {
	for _, p := range s.Interfaces {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}

// named lists the interfaces given by name rather than pattern: readiness needs them present.
func (s Section) named() []string {
	var out []string
	for _, p := range s.Interfaces {
		if !hasMeta(p) {
			out = append(out, p)
		}
	}
	return out
}

func hasMeta(p string) bool {
	for _, c := range p {
		if c == '*' || c == '?' || c == '[' || c == '\\' {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
}
