package agent

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// DefaultListen is where the agent serves /metrics, /healthz and /readyz unless told otherwise.
const DefaultListen = ":9781"

// Section is the `agent:` part of the cluster file: what only the agent reads. Everything else in
// the file is today's format (docs/configuration.md), the same on every host.
//
// The file is decoded from its yaml tags (decodeNode): a field's key and the shape its value must
// have come from the field itself, and its example tag is what a refusal of a value of the wrong
// shape shows.
type Section struct {
	// Interfaces are names or shell patterns (eth*, ens[0-9]*); QJump goes up on every interface
	// of this network namespace that matches one.
	Interfaces []string `yaml:"interfaces" example:"[eth0, \"ens*\"]"`
	// Listen is the address of the metrics and health endpoints; --listen overrides it.
	Listen string `yaml:"listen,omitempty" example:"\":9781\""`
	// Cgroups puts cgroups (services, containers) on levels, as `qjump assign` does, declaratively.
	Cgroups []CgroupRule `yaml:"cgroups,omitempty" example:"[{path: system.slice/memcached.service, level: 5}]"`
}

// CgroupRule is one cgroup's level and ceiling. The ceiling holds for every cgroup below it too.
type CgroupRule struct {
	Path     string `yaml:"path" example:"system.slice/memcached.service"` // absolute, or relative to the cgroup v2 root
	Level    *int   `yaml:"level" example:"5"`                             // priority of every new socket in the cgroup; nil: not given
	MaxLevel *int   `yaml:"max_level,omitempty" example:"5"`               // ceiling in the dataplane, if set
	Enforce  bool   `yaml:"enforce,omitempty"`                             // refuse the programs' own SO_PRIORITY
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
	// cgroupPaths are Agent.Cgroups' paths under the agent's cgroup v2 root, in their order: set
	// by the agent that takes the file (resolveCgroups), as they depend on the host.
	cgroupPaths []string
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
	spec, err := parseKeys(f)
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %w", name, err) // as config.Load names it, for up and calc
	}
	spec.Warnings = append(f.Warnings(name), spec.Dataplane.Warnings()...)
	return spec, nil
}

// parseKeys is Parse's check of the keys' values, after the file's YAML is read.
func parseKeys(f config.File) (Spec, error) {
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
	sec, err := parseSection(&f.Agent)
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

// CheckSection checks the agent section of file name, as config.Parse read it (config.File.Agent),
// as the agent would at start and on an edit, for `qjump calc --config`, which checks a cluster
// file before it ships. A file without one (a plain configuration file for up) passes, and
// present says so.
func CheckSection(name string, section *yaml.Node) (present bool, err error) {
	if noSection(section) {
		return false, nil
	}
	if _, err := parseSection(section); err != nil {
		return true, fmt.Errorf("%s: %w", name, err)
	}
	return true, nil
}

// SectionExample is the smallest agent section, as the refusal of a file without one (and calc's
// note of it) shows it.
const SectionExample = `"agent: {interfaces: [eth0]}"`

// noSection says whether the agent section is absent, or there with no value (`agent:`).
func noSection(n *yaml.Node) bool { return n.Kind == 0 || n.ShortTag() == "!!null" }

// parseSection decodes the agent section, as config.Parse read it, strictly: an unknown key in it
// is an error, as in the rest of the file, and so is a value of the wrong shape, named by its key.
func parseSection(n *yaml.Node) (Section, error) {
	if noSection(n) {
		const needs = " (names, or patterns such as eth*; docs/configuration.md)"
		allowed := "the file has no agent: section, which qjump agent needs to know the interfaces to run QJump on: " +
			"add one such as " + SectionExample + needs + "; up, reload and calc take the file without it"
		if n.Kind != 0 {
			allowed = "the file's agent: section is empty: qjump agent needs it to name the interfaces to run QJump on, " +
				"such as " + SectionExample + needs
		}
		return Section{}, &model.FieldError{Field: "agent.interfaces", Value: "", Allowed: allowed}
	}
	var s Section
	if err := decodeNode(n, reflect.ValueOf(&s).Elem(), "agent", " (docs/configuration.md)"); err != nil {
		return Section{}, err
	}
	return s, s.validate()
}

// decodeNode decodes n into v as yaml would, and strictly: yaml decodes a node without checking its
// keys, and its error for a value of the wrong shape names a Go type, not the key ("cannot unmarshal
// !!str `eth0` into []string"). A key that v's struct has no field for (by yaml tag) is refused as
// config.Parse refuses one at the top; a value of the wrong shape is refused naming its key (field)
// and the shape v's type needs, then hint (the field's example). Everything comes from the types,
// so a field added to Section or CgroupRule is checked as the others are.
func decodeNode(n *yaml.Node, v reflect.Value, field, hint string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.ShortTag() == "!!null" {
		return nil // as yaml: the zero value (validate says whether one is missing)
	}
	wrong := func() error {
		return &model.FieldError{Field: field, Value: nodeText(n), Allowed: "need " + shape(v.Type()) + hint}
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := decodeNode(n, p.Elem(), field, hint); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return wrong()
		}
		return decodeMapping(n, v, field)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return wrong()
		}
		list := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := decodeNode(item, list.Index(i), fmt.Sprintf("%s[%d]", field, i), ""); err != nil {
				return err
			}
		}
		v.Set(list)
	default:
		if n.Kind != yaml.ScalarNode || n.Decode(v.Addr().Interface()) != nil {
			return wrong()
		}
	}
	return nil
}

// decodeMapping decodes the keys of mapping n into the fields of struct v with those yaml tags.
func decodeMapping(n *yaml.Node, v reflect.Value, field string) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		f, ok := fieldByKey(v.Type(), key.Value)
		if !ok {
			return config.UnknownKeyAt(key.Value, strconv.Itoa(key.Line), config.Keys{Prefix: field + ".", Struct: v.Interface()})
		}
		if line, again := seen[key.Value]; again {
			where := fmt.Sprintf("at lines %d and %d", line, key.Line)
			if line == key.Line {
				where = fmt.Sprintf("on line %d", line)
			}
			return &model.FieldError{Field: field + "." + key.Value, Value: nodeText(value),
				Allowed: "each key once: given twice " + where}
		}
		seen[key.Value] = key.Line
		hint := ""
		if e := f.Tag.Get("example"); e != "" {
			hint = ", e.g. " + e
		}
		if err := decodeNode(value, v.FieldByIndex(f.Index), field+"."+key.Value, hint); err != nil {
			return err
		}
	}
	return nil
}

// fieldByKey is the field of struct type t whose yaml tag names key.
func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for _, f := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name == key && name != "" && name != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// shape says in words what a value of type t is written as.
func shape(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return shape(t.Elem())
	case reflect.String:
		return "text"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list, each " + shape(t.Elem())
	case reflect.Struct:
		return "a mapping of " + strings.Join(config.YAMLKeys(t), ", ")
	}
	return t.String()
}

// nodeText is a value as the file gives it, for a refusal: a scalar as written, a list or a mapping
// in flow style, cut short if long.
func nodeText(n *yaml.Node) string {
	text := n.Value
	if n.Kind != yaml.ScalarNode {
		flow := *n
		flow.Style |= yaml.FlowStyle
		out, _ := yaml.Marshal(&flow)
		text = oneLine(string(out))
	}
	if r := []rune(text); len(r) > 60 {
		text = string(r[:57]) + "..."
	}
	return text
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
		case !filepath.IsAbs(c.Path) && !filepath.IsLocal(c.Path):
			// Found here, calc refuses it too; an absolute path is checked by the agent, against its root.
			return &model.FieldError{Field: field + ".path", Value: c.Path,
				Allowed: "need a cgroup below the cgroup v2 root: a relative path must not climb out of it with .."}
		case seen[filepath.Clean(c.Path)]:
			return &model.FieldError{Field: field + ".path", Value: c.Path, Allowed: "each cgroup once"}
		case c.Level == nil: // a missing level would put the cgroup on bulk without a word
			return &model.FieldError{Field: field + ".level", Value: "", Allowed: "need a level from 0 to 7 for each cgroup"}
		case !isLevel(*c.Level):
			return &model.FieldError{Field: field + ".level", Value: strconv.Itoa(*c.Level), Allowed: "need a level from 0 to 7"}
		case c.MaxLevel != nil && !isLevel(*c.MaxLevel):
			return &model.FieldError{Field: field + ".max_level", Value: strconv.Itoa(*c.MaxLevel), Allowed: "need a level from 0 to 7"}
		case c.MaxLevel != nil:
			if err := model.CheckCeiling(field+".level", model.Level(*c.Level), model.Level(*c.MaxLevel)); err != nil {
				return &model.FieldError{Field: field + ".max_level", Value: strconv.Itoa(*c.MaxLevel), Allowed: err.Error()}
			}
		}
		seen[filepath.Clean(c.Path)] = true
	}
	return nil
}

func isLevel(l int) bool { return l >= 0 && l < model.NumLevels }

// CheckListen checks an address to serve the endpoints on, as agent.listen and --listen give it:
// host:port or :port, the host an IP address or a host name, the port a number from 0 to 65535.
// Port 0 lets the kernel choose a free one, which the agent logs at start ("agent running ...
// listen="): for tests, and for agents side by side. Found at start, a bad address made the agent
// exit 1 on its next restart, a crash loop under Restart=on-failure. Whether the host is one of
// this host's addresses, only the agent can tell (checkListenHere).
func CheckListen(addr string) error {
	const allowed = "need host:port or :port, the host an IP address or a host name, with a port from 0 to 65535 " +
		"(0: a free port, logged at start), e.g. :9781 or 127.0.0.1:9781"
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New(allowed)
	}
	// ParseUint, not Atoi: "+80" and "-1" are no ports, and 16 bits hold every port.
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return errors.New(allowed)
	}
	if _, err := netip.ParseAddr(host); host != "" && err != nil && !isHostName(host) {
		return errors.New(allowed)
	}
	return nil
}

// isHostName says whether s is written as a host name (RFC 1123): dot-separated labels of letters,
// digits and inner hyphens (and underscores, which some resolvers serve), the last not all digits. 1.2.3 is neither an IPv4 address nor a name,
// where a resolver would try it as one and fail only when the agent restarts.
func isHostName(s string) bool {
	labels := strings.Split(strings.TrimSuffix(s, "."), ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' ||
			strings.IndexFunc(l, func(r rune) bool { return !isLetterDigit(r) && r != '-' && r != '_' }) >= 0 {
			return false
		}
	}
	last := labels[len(labels)-1]
	return len(s) <= 253 && strings.IndexFunc(last, func(r rune) bool { return r < '0' || r > '9' }) >= 0
}

func isLetterDigit(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
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
