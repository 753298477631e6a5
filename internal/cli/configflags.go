package cli

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// configFlags are the flags that set a dataplane configuration, which up and reload share: a
// --config file, and the model flags, mode, mark, autoclass, VLAN id and default level, each of
// which overrides the same key of the configuration it applies to, only when the user gave it.
type configFlags struct {
	changed      func(flag string) bool // whether the user gave the flag
	model        *modelFlags
	configFile   string
	mode         string
	mark         string
	autoclass    bool
	vlanID       int
	defaultLevel int
	// keptRates are reload's target rates kept from the running configuration, which no flag or
	// file gave: a refusal of one says so rather than blame a --target-rate the user never typed.
	keptRates map[model.Level]model.Rate
	// base is what a key neither --config nor a flag gives comes from, for messages: "the
	// default" for up, "what the interface runs" for reload.
	base string
	// fileWarnings are the --config file's warnings (config.File.Warnings), read by fileOrDefault.
	fileWarnings []string
	// file is the --config file as read (load), which says which keys it gives.
	file config.File
}

// unitWarnings are the rates the --config file and the flags gave without a unit: read as bits
// per second, and said so the same way wherever they came from.
func (c *configFlags) unitWarnings() []string {
	return append(slices.Clone(c.fileWarnings), c.model.unitWarnings()...)
}

// register adds the flags to fs, showing def's values as their defaults (a zero def shows none:
// reload's flags change the running configuration, whose values are the defaults there).
func (c *configFlags) register(fs *pflag.FlagSet, def config.Dataplane, configHelp string) {
	c.model.register(fs)
	fs.StringVar(&c.configFile, "config", "", configHelp)
	fs.StringVar(&c.mode, "mode", string(def.Mode), "over budget: police (drop or demote) or shape (delay in HTB)")
	fs.BoolVar(&c.autoclass, "autoclass", def.Autoclass, "police: demote over-budget packets to the highest lower level with budget")
	fs.StringVar(&c.mark, "mark", string(def.Mark), "how packets carry their level: dscp, pcp, both or none")
	fs.IntVar(&c.vlanID, "vlan-id", def.VLANID, "VLAN id of the 802.1Q tag that pcp marking pushes; 0 is a priority tag (needs --mark pcp or both)")
	fs.IntVar(&c.defaultLevel, "default-level", int(def.DefaultLevel), "level of unclassified traffic: socket priorities the priority table leaves unmapped (by default 0 and 8..15), and any above 15")
}

// fileOrDefault is the --config file's configuration, or the defaults without a file: what up and
// calc lay the flags over.
func (c *configFlags) fileOrDefault() (config.Dataplane, error) {
	if c.configFile == "" {
		return config.Default(), nil
	}
	return c.load()
}

// load reads the --config file, keeping it and its warnings. Its values are checked once the
// flags are laid over them (over): a flag replaces a file's value before anything judges it.
func (c *configFlags) load() (config.Dataplane, error) {
	f, d, w, err := config.LoadValues(c.configFile)
	if err != nil {
		return d, configFileError(c.configFile, err)
	}
	c.file, c.fileWarnings = f, w
	return d, nil
}

// noModel is up's and calc's usage error when neither the flags nor --config give the model:
// flags and keys are what is missing of it (modelMissing).
func noModel(flags, keys string) string {
	return fmt.Sprintf("the model needs %s (or %s in --config)", flags, keys)
}

// modelMissing names what d lacks of the model, as flags (--hosts, --rate or both) and as the
// file's keys: the one missing, not both when one was given; ok when neither is. A value given
// is not missing, even 0 (a file's hosts: 0): validation refuses it as given.
func (c *configFlags) modelMissing(d config.Dataplane) (flags, keys string, ok bool) {
	noHosts := d.Model.Hosts == 0 && !c.gave("hosts")
	noRate := d.Model.Rate == 0 && !c.gave("rate")
	switch {
	case noHosts && noRate:
		return "--hosts and --rate", "hosts: and rate:", false
	case noHosts:
		return "--hosts", "hosts:", false
	case noRate:
		return "--rate", "rate:", false
	}
	return "", "", true
}

// gave says whether a flag or the --config file gave the field.
func (c *configFlags) gave(field string) bool {
	return c.changed(field) || c.configFile != "" && c.file.Gives(field)
}

// over is the configuration for dev: base with the flags the user gave over it, P resolved for
// dev's MTU (mtu) and solved, validated once with every source laid over the others, and a
// refusal named where its value came from (blame). missing is the usage error when neither gave
// hosts or rate, given what is missing (modelMissing).
func (c *configFlags) over(base config.Dataplane, dev string, mtu mtuOf, missing func(flags, keys string) string) (config.Dataplane, error) {
	d := base
	if err := c.apply(&d); err != nil {
		return d, err
	}
	if flags, keys, ok := c.modelMissing(d); !ok {
		return d, usageErrorf("%s", missing(flags, keys))
	}
	d, err := forDevice(d, dev, mtu)
	if err != nil {
		return d, err
	}
	solved, err := d.Solved()
	if err != nil {
		return solved, c.blame(err)
	}
	return solved, c.checkVLAN(solved)
}

// checkVLAN refuses a --vlan-id the configuration would ignore: the id goes in the 802.1Q tag
// that only PCP marking pushes, so with mark dscp or none the flag would do nothing, silently. It
// runs after validation, so that an id out of range is named as that first.
func (c *configFlags) checkVLAN(d config.Dataplane) error {
	if !c.changed("vlan-id") || d.Mark.MarksPCP() {
		return nil
	}
	return usageErrorf("--vlan-id %d does nothing with %s, which pushes no 802.1Q tag to carry it: give --mark pcp "+
		"or --mark both with it, or leave --vlan-id out", d.VLANID, c.markSource(d.Mark))
}

// markSource names where the mark came from: the flag, the --config file, or the base.
func (c *configFlags) markSource(m config.Mark) string {
	switch {
	case c.changed("mark"):
		return fmt.Sprintf("--mark %s", m)
	case c.configFile != "":
		return fmt.Sprintf("mark %s (--config %s's, or the default)", m, c.configFile)
	}
	return fmt.Sprintf("mark %s (%s)", m, c.base)
}

// warnings is what up and reload say of the configuration they are about to apply: the rates
// given without a unit, the model's warnings, and a VLAN id that does nothing.
func (c *configFlags) warnings(d config.Dataplane) []string {
	return slices.Concat(c.unitWarnings(), d.Warnings(), c.vlanWarnings(d))
}

// vlanWarnings says when a VLAN id that no flag gave (the --config file's vlan_id, or the one the
// interface runs) does nothing under the mark. It is a warning, not a refusal: the file may be a
// cluster's, valid for every agent that reads it, and the id is kept for a later --mark pcp.
func (c *configFlags) vlanWarnings(d config.Dataplane) []string {
	if c.changed("vlan-id") || d.VLANID == 0 || d.Mark.MarksPCP() {
		return nil
	}
	return []string{fmt.Sprintf("vlan_id %d does nothing with mark %s: only mark pcp or both pushes the 802.1Q tag it goes in",
		d.VLANID, d.Mark)}
}

// blame names a field the configuration refused where its value came from: the flag when the
// user gave it (or gave no file), else the --config file's key. A file's target rate that the
// flags' --rate makes too fast is the file's target_rate[L], which is where it is written.
func (c *configFlags) blame(err error) error {
	var fe *model.FieldError
	if errors.As(err, &fe) && c.kept(fe) {
		l, v, _ := config.LevelValue(fe)
		return usageErrorf("level %d keeps its target rate %s from the running configuration, which the new model "+
			"cannot give: %s; give the level a new --target-rate %d=RATE, or give --factors", l, v, fe.Allowed, l)
	}
	if errors.As(err, &fe) && len(fe.Together) > 0 {
		return c.blameTogether(fe)
	}
	if !errors.As(err, &fe) {
		return err
	}
	if c.configFile == "" || c.flagGave(fe) {
		return c.model.typed.flagError(fe)
	}
	return configError(fmt.Errorf("%s: %w", c.configFile, config.FileKey(fe.Rename(c.file.Written))))
}

// blameTogether names each of the values fe refuses together where it came from: a flag the user
// gave as the flag, a key of the --config file as the key, in a message that names the file,
// and the rest by the flag (or the key, in the file's message) with where their value came from.
// What the user gave comes first.
func (c *configFlags) blameTogether(fe *model.FieldError) error {
	source := func(in model.Input) config.Source {
		switch {
		case c.changed(in.Field):
			return config.FromFlag
		case c.configFile != "":
			return c.file.Source(in)
		}
		return config.FromBase
	}
	inFile := slices.ContainsFunc(fe.Inputs(), func(in model.Input) bool { return source(in) == config.FromFile })
	from := c.base
	if from == "" || c.configFile != "" {
		from = "the default"
	}
	named := config.BySource(fe, source, func(in model.Input, s config.Source) model.Input {
		switch s {
		case config.FromFlag:
			in = c.model.typed.input(in)
		case config.FromFile:
			in = c.file.Written(in)
		case config.FromBase:
			in.From = from
		}
		if s == config.FromFlag || s == config.FromBase && !inFile {
			in.Field = "--" + in.Field
			return in
		}
		return config.KeyOf(in)
	})
	if inFile {
		return configError(fmt.Errorf("%s: %w", c.configFile, named))
	}
	return &UsageError{Err: named}
}

// flagGave says whether the field fe refuses was given by a flag; for a target rate, whether
// --target-rate gave that level, since the flag adds levels to the file's.
func (c *configFlags) flagGave(fe *model.FieldError) bool {
	if fe.Field != "target-rate" {
		return c.changed(fe.Field)
	}
	l, _, ok := config.LevelValue(fe)
	_, given := c.model.targetRates[l]
	return ok && given
}

// kept says whether the target rate fe refuses is one of keptRates.
func (c *configFlags) kept(fe *model.FieldError) bool {
	l, _, ok := config.LevelValue(fe)
	return fe.Field == "target-rate" && ok && c.keptRate(l)
}

// keptRate says whether level l's target rate is one of keptRates that --target-rate left as it was.
func (c *configFlags) keptRate(l model.Level) bool {
	_, kept := c.keptRates[l]
	_, given := c.model.targetRates[l]
	return kept && !given
}

// apply overrides d's keys with the flags the user gave.
func (c *configFlags) apply(d *config.Dataplane) error {
	if err := c.applyModel(d); err != nil {
		return err
	}
	if c.changed("mode") {
		d.Mode = config.Mode(c.mode)
	}
	if c.changed("mark") {
		d.Mark = config.Mark(c.mark)
	}
	if c.changed("autoclass") {
		d.Autoclass = c.autoclass
	}
	if c.changed("vlan-id") {
		d.VLANID = c.vlanID
	}
	if c.changed("default-level") {
		d.DefaultLevel = model.Level(c.defaultLevel)
	}
	return nil
}

func (c *configFlags) applyModel(d *config.Dataplane) error {
	m := c.model.cfg
	for name, apply := range map[string]func(){
		"hosts": func() { d.Model.Hosts = m.Hosts }, "rate": func() { d.Model.Rate = m.Rate },
		"packet":       func() { d.Model.Packet, d.AutoPacket = m.Packet, c.model.packetAuto },
		"epsilon":      func() { d.Model.Epsilon = m.Epsilon },
		"mesochronous": func() { d.Model.Mesochronous = m.Mesochronous },
		"factors":      func() { d.Model.Factors = m.Factors },
	} {
		if c.changed(name) {
			apply()
		}
	}
	if !c.changed("target-rate") {
		return nil
	}
	if err := checkTargetRates(c.model.targetRates, d.Model.Factors, c.changed("factors")); err != nil {
		return err
	}
	if d.TargetRates == nil {
		d.TargetRates = map[model.Level]model.Rate{}
	}
	for l, r := range c.model.targetRates {
		d.TargetRates[l] = r
	}
	return nil
}
