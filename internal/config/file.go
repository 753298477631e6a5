package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/qjump-net/qjump/internal/model"
)

// File is the YAML form of a Dataplane (docs/configuration.md). Every key is optional; a key that
// is absent keeps the value it had (the default, or what an earlier source set). Units are the
// same strings the flags take ("10G", "1500B", "4us").
type File struct {
	Hosts          *int              `yaml:"hosts,omitempty" json:"hosts,omitempty"`
	Rate           *string           `yaml:"rate,omitempty" json:"rate,omitempty"`
	Packet         *string           `yaml:"packet,omitempty" json:"packet,omitempty"`
	Epsilon        *string           `yaml:"epsilon,omitempty" json:"epsilon,omitempty"`
	Mesochronous   *int              `yaml:"mesochronous,omitempty" json:"mesochronous,omitempty"`
	Factors        map[string]string `yaml:"factors,omitempty" json:"factors,omitempty"`
	TargetRate     map[string]string `yaml:"target_rate,omitempty" json:"target_rate,omitempty"`
	Mode           *string           `yaml:"mode,omitempty" json:"mode,omitempty"`
	Autoclass      *bool             `yaml:"autoclass,omitempty" json:"autoclass,omitempty"`
	Mark           *string           `yaml:"mark,omitempty" json:"mark,omitempty"`
	VLANID         *int              `yaml:"vlan_id,omitempty" json:"vlan_id,omitempty"`
	DefaultLevel   *int              `yaml:"default_level,omitempty" json:"default_level,omitempty"`
	PriorityLevels map[string]string `yaml:"priority_levels,omitempty" json:"priority_levels,omitempty"`
	DSCP           map[string]int    `yaml:"dscp,omitempty" json:"dscp,omitempty"`
	PCP            map[string]int    `yaml:"pcp,omitempty" json:"pcp,omitempty"`
	// Agent is what `qjump agent` alone reads (interfaces, listen address, cgroups; package
	// internal/agent checks it): up and reload skip it, so one cluster file serves every verb.
	Agent yaml.Node `yaml:"agent,omitempty" json:"-"`
	// autoclassText is autoclass as the file writes it (yes, on, true), which Parse keeps from
	// the node tree for a refusal to quote; nil in a File that Parse did not read.
	autoclassText *string
}

// Load reads the file at path and applies it over Default().
func Load(path string) (Dataplane, error) {
	_, d, _, err := LoadFile(path)
	return d, err
}

// LoadFile is Load with the file as read, which says which keys it gives (Gives), and its
// warnings (Warnings), each naming the file.
func LoadFile(path string) (File, Dataplane, []string, error) {
	return load(path, File.Apply)
}

// LoadValues is LoadFile without its validation: the file's values over Default(), each refused
// only where it cannot be read (a rate that is no rate, a level that is none; File.Set). It is
// for what lays flags over the file and validates the result once (up, reload and calc): a value
// the file gives that a flag replaces, or that only the whole configuration can judge (autoclass
// in a shape-mode file under --mode police), is judged there, and named where it came from. The
// file validated on its own first refused what the flags fixed.
func LoadValues(path string) (File, Dataplane, []string, error) {
	return load(path, File.Set)
}

func load(path string, apply func(File, *Dataplane) error) (File, Dataplane, []string, error) {
	f, err := Read(path)
	if err != nil {
		return f, Dataplane{}, nil, err
	}
	d := Default()
	if err := apply(f, &d); err != nil {
		return f, d, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, d, f.Warnings(path), nil
}

// Gives says whether the file gives the field a *model.FieldError names in the flags' spelling
// (hosts, target-rate): a value validation refuses came from the file, or from elsewhere.
func (f File) Gives(field string) bool {
	return f.refusable()[field].given
}

// keyValue is what the file gives of one key that validation may refuse (File.refusable).
type keyValue struct {
	given bool
	// text is the value as the file writes it; nil keeps the value as validation writes it.
	text *string
	// levels is a per-level key's table (factors, target_rate), each level's value as written.
	levels map[string]string
}

// refusable is every key a *model.FieldError may name by the flags' spelling of its field (the
// tables priority_levels, dscp and pcp are refused by their own keys): whether the file gives
// it, and its value as written. Gives and Written both read it, so that a key the file gives is
// also quoted as the file writes it.
func (f File) refusable() map[string]keyValue {
	text := func(s *string) keyValue { return keyValue{given: s != nil, text: s} }
	whole := func(n *int) keyValue {
		if n == nil {
			return keyValue{}
		}
		s := strconv.Itoa(*n)
		return keyValue{given: true, text: &s}
	}
	levels := func(m map[string]string) keyValue { return keyValue{given: m != nil, levels: m} }
	return map[string]keyValue{
		"hosts": whole(f.Hosts), "rate": text(f.Rate), "packet": text(f.Packet), "epsilon": text(f.Epsilon),
		"mesochronous": whole(f.Mesochronous), "factors": levels(f.Factors), "target-rate": levels(f.TargetRate),
		"mode": text(f.Mode), "mark": text(f.Mark), "vlan-id": whole(f.VLANID), "default-level": whole(f.DefaultLevel),
		// Validation refuses autoclass only when it is on, as "true": the file may have said yes
		// or on, and is quoted as it did.
		"autoclass": {given: f.Autoclass != nil, text: f.autoclassText},
	}
}

// Warnings lists what the file gives that is valid but probably not what its writer meant: a rate
// without a unit (model.UnitlessRate), which reads as bits per second. Each starts with name, what
// the file is called, as Parse's errors do.
func (f File) Warnings(name string) []string {
	var w []string
	if f.Rate != nil {
		if s := model.UnitlessRate("rate", *f.Rate); s != "" {
			w = append(w, name+": "+s)
		}
	}
	levels := slices.Sorted(maps.Keys(f.TargetRate))
	for _, l := range levels {
		if s := model.UnitlessRate("target_rate["+l+"]", f.TargetRate[l]); s != "" {
			w = append(w, name+": "+s)
		}
	}
	return w
}

// Read parses the file at path. Unknown keys are errors, so a typo never goes unnoticed.
func Read(path string) (File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, fmt.Errorf("read config: %w", err)
	}
	return Parse(path, data)
}

// Parse reads YAML; name is what error messages call the source. The file is one YAML document:
// a second one (after ---) would be ignored, its keys unchecked, so it is refused.
func Parse(name string, data []byte) (File, error) {
	var f File
	// The node tree of the first document, checked before decoding (checkNodes); the same decoder
	// then reads on, for a second document.
	nodes := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	parsed := nodes.Decode(&doc) == nil // a syntax error is the struct decoder's to word, below
	if parsed {
		if err := checkNodes(&doc); err != nil {
			return File{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		if fe := UnknownKey(err, Keys{"", File{}}); fe != nil {
			return f, fmt.Errorf("%s: %w", name, fe)
		}
		if fe := SyntaxError(err); fe != nil {
			return f, fmt.Errorf("%s: %w", name, fe)
		}
		if kind := topLevelKind(data); kind != "" {
			return f, &model.FieldError{Field: "config file " + name, Value: kind,
				Allowed: "need keys and values, one a line, such as \"hosts: 12\" (docs/configuration.md)"}
		}
		return f, &model.FieldError{Field: "config file " + name, Value: oneLine(err.Error()),
			Allowed: "need YAML with the keys in docs/configuration.md"}
	}
	if parsed {
		for {
			var more yaml.Node
			err := nodes.Decode(&more)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil || !emptyDocument(&more) {
				return File{}, &model.FieldError{Field: "config file " + name, Value: "a second YAML document (---)",
					Allowed: "need one document"}
			}
		}
	}
	f.autoclassText = scalarText(&doc, "autoclass")
	return f, nil
}

// Apply sets every field the file gives on d and checks what it gives, as the whole configuration
// of a reader that lays nothing over it (the agent, a pinned record); the error names the key.
// Hosts and rate may be left to a later source.
func (f File) Apply(d *Dataplane) error {
	if err := f.Set(d); err != nil {
		return err
	}
	return f.check(*d)
}

// Set sets every field the file gives on d, refusing only a value that cannot be read (naming the
// key): what the value means together with the others is Validate's, once every source is laid
// over the file (LoadValues).
func (f File) Set(d *Dataplane) error {
	if err := f.applyModel(&d.Model); err != nil {
		return err
	}
	if f.Packet != nil {
		p, auto, err := ParsePacket(*f.Packet)
		if err != nil {
			return fieldError("packet", *f.Packet, err.Error())
		}
		d.AutoPacket = auto
		if !auto {
			d.Model.Packet = p
		}
	}
	if f.TargetRate != nil {
		rates, err := levelMap(f.TargetRate, "target_rate", model.ParseRate)
		if err != nil {
			return err
		}
		d.TargetRates = rates
	}
	setString(f.Mode, (*string)(&d.Mode))
	setString(f.Mark, (*string)(&d.Mark))
	setBool(f.Autoclass, &d.Autoclass)
	setInt(f.VLANID, &d.VLANID)
	if f.DefaultLevel != nil {
		d.DefaultLevel = model.Level(*f.DefaultLevel)
	}
	return f.applyTables(d)
}

// check validates v, the file applied, for what the file gives. Hosts and rate may come from
// flags later: where the file leaves them out they are stood in for, and a refusal that names a
// stand-in waits for the value given.
func (f File) check(v Dataplane) error {
	standIn := map[string]bool{} // the fields given a value here that neither the file nor a default gave
	if f.Hosts == nil && v.Model.Hosts == 0 {
		v.Model.Hosts, standIn["hosts"] = 1, true
	}
	if f.Rate == nil && v.Model.Rate == 0 {
		// One P per µs from each host: an epoch of m µs and a fan-in bound of b·Σf µs, in range
		// whatever else the file gives. With 1b/s a file of hosts: 1000 whose rate a flag gives
		// was refused as `invalid rate "1b/s"`, a rate the user never gave. What R does to the
		// epoch is checked once a flag has given it.
		v.Model.Rate, standIn["rate"] = min(model.Rate(max(1, float64(v.Model.Hosts)*float64(v.Model.Packet)*8*1e6)), model.MaxRate), true
	}
	err := v.Validate()
	// A refusal that names a stand-in together with what the file gives (ε that leaves the m µs
	// no room) is not the file's alone: it waits for the value a flag gives, and is checked with
	// it, rather than name a rate the user never gave.
	var fe *model.FieldError
	if errors.As(err, &fe) && slices.ContainsFunc(fe.Inputs(), func(in model.Input) bool { return standIn[in.Field] }) {
		return nil
	}
	return f.named(err)
}

// named is FileKey for what Apply refuses, each value as the file writes it (Written). Of values
// refused together, those the file does not give are said to be the default's, after those it
// gives (BySource).
func (f File) named(err error) error {
	var fe *model.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	return BySource(fe, f.Source, func(in model.Input, from Source) model.Input {
		if from == FromBase {
			in.From = "the default"
		}
		return KeyOf(f.Written(in))
	})
}

// Written is in, an input a *model.FieldError names in the flags' spelling, with its value as the
// file writes it when the file gives in's field ("10", not the "10b/s" it reads as): for factors
// and target_rate, the level's own text. FileKey then names it as the file does.
func (f File) Written(in model.Input) model.Input {
	key := f.refusable()[in.Field]
	switch {
	case key.text != nil:
		in.Value = *key.text
	case key.levels != nil:
		l, _, ok := levelValue(in.Value)
		for k, v := range key.levels {
			if lk, err := model.ParseLevel(k); ok && err == nil && lk == l {
				in.Value = fmt.Sprintf("%d=%s", l, v)
			}
		}
	}
	return in
}

func (f File) applyModel(m *model.Config) error {
	setInt(f.Hosts, &m.Hosts)
	setInt(f.Mesochronous, &m.Mesochronous)
	if err := parseInto(f.Rate, "rate", &m.Rate, ParseRate); err != nil {
		return err
	}
	if err := parseInto(f.Epsilon, "epsilon", &m.Epsilon, model.ParseDuration); err != nil {
		return err
	}
	if f.Factors != nil {
		fs, err := levelMap(f.Factors, "factors", model.ParseFactor)
		if err != nil {
			return err
		}
		m.Factors = model.Factors(fs)
	}
	return nil
}

func (f File) applyTables(d *Dataplane) error {
	for k, v := range f.PriorityLevels {
		p, err := strconv.Atoi(k)
		if err != nil || p < 0 || p >= Priorities {
			return fieldError("priority_levels", k, "need a priority from 0 to 15")
		}
		if strings.EqualFold(v, "default") {
			d.PriorityLevels[p] = Unclassified
			continue
		}
		l, err := model.ParseLevel(v)
		if err != nil {
			return fieldError(fmt.Sprintf("priority_levels[%d]", p), v, "need a level from 0 to 7, or \"default\"")
		}
		d.PriorityLevels[p] = int(l)
	}
	for name, table := range map[string]struct {
		in  map[string]int
		out *[model.NumLevels]int
	}{"dscp": {f.DSCP, &d.DSCP}, "pcp": {f.PCP, &d.PCP}} {
		for k, v := range table.in {
			l, err := model.ParseLevel(k)
			if err != nil {
				return fieldError(name, k, "need a level from 0 to 7 as the key")
			}
			table.out[l] = v
		}
	}
	return nil
}

// ParsePacket reads P as a file or a flag gives it: "auto" (one full frame of the device, which
// ResolvePacket fills in) or a size in wire bytes.
func ParsePacket(s string) (p model.Bytes, auto bool, err error) {
	if strings.EqualFold(strings.TrimSpace(s), "auto") {
		return 0, true, nil
	}
	// Below one minimum frame is refused here rather than by model.Validate so the message
	// quotes what was typed ("83"), not the parsed size ("83B").
	if p, err = model.ParseBytes(s); err != nil {
		return 0, false, errors.New(packetAllowed)
	}
	if p < model.MinPacket {
		return 0, false, errors.New(model.MinPacketAllowed)
	}
	return p, false, nil
}

const packetAllowed = "need auto (one full frame of the device) or a whole number of bytes on the wire, " +
	"at least 84, e.g. 1538B, 9k"

func levelMap[V any](in map[string]string, field string, parse func(string) (V, error)) (map[model.Level]V, error) {
	out := map[model.Level]V{}
	for k, v := range in {
		l, err := model.ParseLevel(k)
		if err != nil {
			return nil, fieldError(field, k, "need a level from 0 (lowest) to 7 (highest) as the key")
		}
		x, err := parse(v)
		if err != nil {
			return nil, fieldError(fmt.Sprintf("%s[%d]", field, l), v, err.Error())
		}
		out[l] = x
	}
	return out, nil
}

func parseInto[T any](s *string, field string, dst *T, parse func(string) (T, error)) error {
	if s == nil {
		return nil
	}
	v, err := parse(*s)
	if err != nil {
		return fieldError(field, *s, err.Error())
	}
	*dst = v
	return nil
}

func setString(src, dst *string) {
	if src != nil {
		*dst = *src
	}
}

func setInt(src, dst *int) {
	if src != nil {
		*dst = *src
	}
}

func setBool(src, dst *bool) {
	if src != nil {
		*dst = *src
	}
}

// emptyDocument says whether a YAML document holds nothing (a trailing --- makes one).
func emptyDocument(n *yaml.Node) bool {
	return len(n.Content) == 0 || (len(n.Content) == 1 && n.Content[0].ShortTag() == "!!null")
}

// oneLine folds yaml's multi-line messages ("unmarshal errors:\n  line 3: ...") into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// topLevelKind names what a document is when it is not a mapping ("a YAML list", "a single value
// hello"), for a message that says so rather than name the Go type it did not fit ("cannot
// unmarshal !!seq into config.File"); "" for a mapping or what cannot be read.
func topLevelKind(data []byte) string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return ""
	}
	switch doc.Content[0].Kind {
	case yaml.SequenceNode:
		return "a YAML list"
	case yaml.ScalarNode:
		// Described, not quoted: a file that is no configuration (--config /etc/passwd, a key or
		// token file given by mistake) was quoted whole into the message, and so into whatever
		// logs keep it (review, helper-98); 40 characters of it were still a whole token
		// (review, helper-103).
		v := doc.Content[0].Value
		return fmt.Sprintf("a single value of %d characters", utf8.RuneCountInString(v))
	}
	return ""
}
