// Package config is the format of QJump's configuration file: the model's inputs and the
// dataplane's settings for one interface. `qjump up`/`reload`, `qjump run --sndbuf auto` and the
// testbed read it; docs/configuration.md documents it with an annotated example.
package config

import (
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/qjump-net/qjump/internal/model"
)

// Mode is what the dataplane does with a packet that exceeds its level's budget.
type Mode string

const (
	// Police drops it, or demotes it with Autoclass: the paper's behaviour.
	Police Mode = "police"
	// Shape delays it in the level's HTB class: TCP sees back-pressure instead of losses.
	Shape Mode = "shape"
)

// Mark is how a packet carries its level to the switches.
type Mark string

const (
	MarkDSCP Mark = "dscp" // IPv4 TOS / IPv6 traffic class
	MarkPCP  Mark = "pcp"  // 802.1Q priority code point
	MarkBoth Mark = "both"
	MarkNone Mark = "none"
)

// Priorities is how many skb->priority values (SO_PRIORITY) the priority->level table covers.
const Priorities = 16

// Unclassified in PriorityLevels sends a priority to DefaultLevel.
const Unclassified = -1

// MaxVLANID is the highest 802.1Q VLAN id; 0 is a priority tag (no VLAN, priority only).
const MaxVLANID = 4094

// Dataplane is everything the dataplane needs for one interface.
type Dataplane struct {
	Model model.Config
	// AutoPacket says P is one full frame of the device ("packet: auto", the default):
	// ResolvePacket sets Model.Packet from the device's MTU. Until then it is model.DefaultPacket.
	// Code that sets Model.Packet itself clears it, or ResolvePacket replaces that P.
	AutoPacket  bool
	TargetRates map[model.Level]model.Rate // solved into Model.Factors by Solved
	// SolvedRates are the target rates Solved turned into factors. A factor holds a rate only
	// for the epoch it was solved in, so the pinned record keeps them, and a reload that changes
	// n, R, P, ε or m solves them again instead of letting the level's rate drift.
	SolvedRates  map[model.Level]model.Rate
	Mode         Mode
	Autoclass    bool // police: demote to the highest lower level with budget instead of dropping
	Mark         Mark
	VLANID       int         // VLAN id of a pushed 802.1Q tag; 0 is a priority tag
	DefaultLevel model.Level // level of unclassified traffic
	// PriorityLevels maps skb->priority 0..15 to a level, or Unclassified.
	PriorityLevels [Priorities]int
	DSCP           [model.NumLevels]int // level -> DSCP code point, 0..63
	PCP            [model.NumLevels]int // level -> 802.1Q PCP, 0..7
}

// Default is the configuration before any file or flag: the model's defaults (hosts and rate
// still to be given; P one full frame of the device, a 1500-MTU one until ResolvePacket), police mode, DSCP marking with class selectors CS0..CS7, PCP = level,
// priority p -> level p for 1..7 and priority 0 (every socket's default) unclassified.
func Default() Dataplane {
	d := Dataplane{
		Model: model.Config{
			Packet:       model.DefaultPacket,
			Mesochronous: model.DefaultMesochronous,
			Factors:      model.DefaultFactors(),
		},
		AutoPacket: true,
		Mode:       Police,
		Mark:       MarkDSCP,
	}
	for p := range d.PriorityLevels {
		d.PriorityLevels[p] = Unclassified
		if p > 0 && p < model.NumLevels {
			d.PriorityLevels[p] = p
		}
	}
	for l := range model.NumLevels {
		d.DSCP[l] = l << 3
		d.PCP[l] = l
	}
	return d
}

// ResolvePacket returns d for a device of this MTU: the device's largest frame on the wire
// (model.FullFrameWire, with the 802.1Q tag that PCP marking pushes) becomes Model.MaxFrame, which
// the model's warnings compare budgets with, and, when P is auto, P. Resolve before Solved: target
// rates are solved in units of P. Resolving twice with the same MTU changes nothing.
func (d Dataplane) ResolvePacket(mtu int) (Dataplane, error) {
	if mtu < 1 {
		return d, fmt.Errorf("resolve packet: device MTU %d: need at least 1", mtu)
	}
	d.Model.MaxFrame = model.FullFrameWire(mtu, d.Mark.MarksPCP())
	if d.AutoPacket {
		d.Model.Packet = d.Model.MaxFrame
	}
	return d, nil
}

// ModelOfMode is d's model told the mode it runs in (model.Config.Shaped): the fan-in bound counts
// the mode's burst, and shape mode's buckets have a limit. A running configuration read back from
// its record is not solved again, so what reads its bounds (status) asks for this.
func (d Dataplane) ModelOfMode() model.Config {
	m := d.Model
	m.Shaped = d.Mode == Shape
	return m
}

// Solved returns d with its target rates solved into factors (a target rate replaces the factor of
// its level) and kept as SolvedRates, the model told the mode, and validated.
func (d Dataplane) Solved() (Dataplane, error) {
	// Told first: shape mode's bucket has a limit that a target rate is checked against too.
	d.Model = d.ModelOfMode()
	// Validate leaves out the factors the target rates replace, which CheckTargetRates then
	// judges as rates in the valid epoch.
	if err := d.Validate(); err != nil {
		return d, err
	}
	if err := d.Model.CheckTargetRates(d.TargetRates); err != nil {
		return d, err
	}
	d.Model = d.Model.WithTargetRates(d.TargetRates)
	d.SolvedRates, d.TargetRates = d.TargetRates, nil
	return d, d.Validate()
}

// MinRate is the slowest R the dataplane runs at: HTB's rates are whole bytes a second.
const MinRate model.Rate = 8

// rateAllowed is what R that is no rate is told: the range the dataplane takes (MinRate to
// model.MaxRate), not model.ParseRate's "at least 1", which --rate 1 then failed with "need at
// least 8b/s".
var rateAllowed = fmt.Sprintf("need a number of bits per second from %s to %s, e.g. 10G, 10Gbit, 10gbit, 10Gb/s, "+
	"100M, 100mbit, 2.5Gbps (bits, never B for bytes)", MinRate, model.MaxRate)

// ParseRate reads R, the link rate, as --rate and a file's rate: give it (model.ParseRate), refused
// with the range the dataplane takes. A rate in range of the parser but not of the dataplane (1,
// 5., 2000T) is Validate's to refuse, naming the limit it is beyond.
func ParseRate(s string) (model.Rate, error) {
	r, err := model.ParseRate(s)
	if err != nil {
		return 0, errors.New(rateAllowed)
	}
	return r, nil
}

// Validate checks every field and returns a *model.FieldError for the first one out of range.
// A level that a target rate will be solved for (TargetRates, before Solved) is checked by
// CheckTargetRates, not by the factor it has now, which the target rate replaces: a file's
// factors[5] 0.01 beside target_rate[5] 5G, or one a --target-rate 5=5G replaces, was refused.
func (d Dataplane) Validate() error {
	if err := d.unsolvedModel().Validate(); err != nil {
		return err
	}
	switch {
	case d.Model.Rate < MinRate:
		// The model takes any positive R; the egress tree cannot (review, helper-80: up planned the
		// tree and failed with exit 1, naming no flag, and calc took the rate).
		return fieldError("rate", d.Model.Rate.String(), fmt.Sprintf("need at least %s: the egress tree's HTB classes shape no slower", MinRate))
	case len(d.unsolvedModel().Factors) == 0:
		return fieldError("factors", "", "need at least one level, e.g. 7=1,0=unlimited")
	case d.Mode != Police && d.Mode != Shape:
		return fieldError("mode", string(d.Mode), "need police or shape")
	case d.Mark != MarkDSCP && d.Mark != MarkPCP && d.Mark != MarkBoth && d.Mark != MarkNone:
		return fieldError("mark", string(d.Mark), "need dscp, pcp, both or none")
	case d.VLANID < 0 || d.VLANID > MaxVLANID:
		return fieldError("vlan-id", strconv.Itoa(d.VLANID), "need 0 (priority tag) to 4094")
	case d.DefaultLevel < 0 || d.DefaultLevel >= model.NumLevels:
		return fieldError("default-level", strconv.Itoa(int(d.DefaultLevel)), "need a level from 0 to 7")
	case d.Autoclass && d.Mode == Shape:
		return fieldError("autoclass", "true", "autoclass demotes instead of dropping, so it needs mode police")
	}
	for p, l := range d.PriorityLevels {
		if l != Unclassified && (l < 0 || l >= model.NumLevels) {
			return fieldError(fmt.Sprintf("priority_levels[%d]", p), strconv.Itoa(l), "need a level from 0 to 7, or \"default\"")
		}
	}
	for l := range model.NumLevels {
		if d.DSCP[l] < 0 || d.DSCP[l] > 63 {
			return fieldError(fmt.Sprintf("dscp[%d]", l), strconv.Itoa(d.DSCP[l]), "need a DSCP code point from 0 to 63")
		}
		if d.PCP[l] < 0 || d.PCP[l] > 7 {
			return fieldError(fmt.Sprintf("pcp[%d]", l), strconv.Itoa(d.PCP[l]), "need an 802.1Q priority from 0 to 7")
		}
	}
	return nil
}

// unsolvedModel is d's model with each level that a target rate will be solved for standing as
// unlimited: a level there, as it will be, whose factor is not yet known. Its factor is only
// checked once solved (the lower levels' bounds with it too: Solved validates again).
func (d Dataplane) unsolvedModel() model.Config {
	m := d.Model
	if len(d.TargetRates) == 0 {
		return m
	}
	m.Factors = maps.Clone(m.Factors)
	if m.Factors == nil {
		m.Factors = model.Factors{}
	}
	for l := range d.TargetRates {
		if l >= 0 && l < model.NumLevels { // a level out of range is CheckTargetRates' to refuse
			m.Factors[l] = model.Unlimited()
		}
	}
	return m
}

// LevelOf is the level the dataplane sends a packet of socket priority p at, before any cgroup
// ceiling: the priority->level table, the default level for unclassified priorities, then the
// carrier of that level when it has no factor (model.Factors.Carrier). bpf/qjump.bpf.c classify()
// does the same per packet.
func (d Dataplane) LevelOf(p int) model.Level {
	return d.carrier(d.classified(p))
}

// LevelUnder is LevelOf for a socket whose cgroup has a ceiling: the level is lowered to the
// ceiling before its carrier is found, and when that carrier is above the ceiling no level may
// send the packet (false): classify() drops it and counts it as "no level".
func (d Dataplane) LevelUnder(p int, ceiling model.Level) (model.Level, bool) {
	c := d.carrier(min(d.classified(p), ceiling))
	return c, c <= ceiling
}

// classified is the level of socket priority p by the priority->level table, or the default
// level for an unclassified priority.
func (d Dataplane) classified(p int) model.Level {
	if p >= 0 && p < Priorities && d.PriorityLevels[p] != Unclassified {
		return model.Level(d.PriorityLevels[p])
	}
	return d.DefaultLevel
}

// Warnings lists what is valid but probably not meant: the model's in this mode
// (model.Config.Warnings of ModelOfMode: shape mode's token bucket holds a frame, police mode's
// budget does not), and unclassified traffic raised (DefaultLevelWarning).
func (d Dataplane) Warnings() []string {
	w := d.ModelOfMode().Warnings()
	if dw := d.DefaultLevelWarning(); dw != "" {
		w = append(w, dw)
	}
	return w
}

// DefaultLevelWarning says so when the level where every socket that sets no priority goes
// (priority 0's: the default level unless the priority map gives it another) has no factor and no
// configured level below it: its traffic is then carried by the lowest configured level
// (model.Factors.Carrier), with that level's budget and priority. With --factors 7=1 alone every
// unclassified socket shared the guaranteed level's budget, marked for its priority, and nothing
// said so. Empty otherwise, and where that level was chosen as a configured one
// (--default-level 7 with 7=1).
func (d Dataplane) DefaultLevelWarning() string {
	l := d.classified(0)
	c := d.carrier(l)
	if c <= l {
		return ""
	}
	where, fix := fmt.Sprintf("the default level, %d,", l), "make the default level a configured one (--default-level, default_level)"
	if d.PriorityLevels[0] != Unclassified {
		where, fix = fmt.Sprintf("level %d, priority 0's in the priority map,", l), "map priority 0 to a configured level (priority_levels)"
	}
	limit := "unlimited"
	if b, limited := d.Model.Budget(d.Model.Factors[c]); limited {
		limit = fmt.Sprintf("within its budget of %s per epoch", b)
	}
	return fmt.Sprintf("%s where every socket that sets no priority goes, has no factor and no configured level below it: its "+
		"traffic is sent at level %d, %s and at its priority; give level %d a factor (%d=unlimited for bulk), or %s, unless that "+
		"is meant", where, c, limit, l, l, fix)
}

// carrier is the configured level that sends level l's packets (model.Factors.Carrier).
func (d Dataplane) carrier(l model.Level) model.Level {
	if c, ok := d.Model.Factors.Carrier(l); ok {
		return c
	}
	return l
}

// MarksDSCP and MarksPCP say which headers the mark rewrites.
func (m Mark) MarksDSCP() bool { return m == MarkDSCP || m == MarkBoth }
func (m Mark) MarksPCP() bool  { return m == MarkPCP || m == MarkBoth }

func fieldError(field, value, allowed string) *model.FieldError {
	return &model.FieldError{Field: field, Value: value, Allowed: allowed}
}
