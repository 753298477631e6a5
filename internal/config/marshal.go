package config

import (
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/qjump-net/qjump/internal/model"
)

// Marshal writes d (solved: factors only, P resolved) as a File, the form the dataplane's pinned
// record keeps (`qjump status --json` writes ToGivenFile).
func Marshal(d Dataplane) ([]byte, error) {
	return yaml.Marshal(ToFile(d))
}

// ToFile is the inverse of Apply for a solved configuration, with exact numbers.
func ToFile(d Dataplane) File {
	m := d.Model
	rate := strconv.FormatFloat(float64(m.Rate), 'f', -1, 64)
	packet := strconv.FormatInt(int64(m.Packet), 10) + "B"
	eps := time.Duration(m.Epsilon).String()
	mode, mark := string(d.Mode), string(d.Mark)
	def := int(d.DefaultLevel)
	f := File{
		Hosts: &m.Hosts, Rate: &rate, Packet: &packet, Epsilon: &eps, Mesochronous: &m.Mesochronous,
		Factors: map[string]string{}, Mode: &mode, Autoclass: &d.Autoclass, Mark: &mark,
		VLANID: &d.VLANID, DefaultLevel: &def, PriorityLevels: map[string]string{},
		DSCP: map[string]int{}, PCP: map[string]int{},
	}
	for l, fa := range m.Factors {
		f.Factors[strconv.Itoa(int(l))] = fa.String()
	}
	for p, l := range d.PriorityLevels {
		v := "default"
		if l != Unclassified {
			v = strconv.Itoa(l)
		}
		f.PriorityLevels[strconv.Itoa(p)] = v
	}
	for l := range model.NumLevels {
		f.DSCP[strconv.Itoa(l)] = d.DSCP[l]
		f.PCP[strconv.Itoa(l)] = d.PCP[l]
	}
	return f
}

// ToGivenFile is ToFile as a file gives the configuration again, what `qjump status --json`'s
// config is for (`qjump up --replace --config FILE`): P is "auto" when it follows the device
// (AutoPacket), not the size it resolved to, which would stop following an MTU change; and the
// target rates the factors were solved from are target_rate, in bits per second with the unit
// (exact, and no unitless-rate warning), so that they are solved again for the epoch the file
// gives. Their levels' factors stay in factors too: a level in both, the target rate wins.
func ToGivenFile(d Dataplane) File {
	f := ToFile(d)
	if d.AutoPacket {
		auto := "auto"
		f.Packet = &auto
	}
	if len(d.SolvedRates) > 0 {
		f.TargetRate = map[string]string{}
		for l, r := range d.SolvedRates {
			// Exact, so that the factor solved again is the one that runs: 33.3M is written as
			// 33299999.999999996b, which reads back as it, and rounded to whole bits 1G/3 would not.
			f.TargetRate[strconv.Itoa(int(l))] = strconv.FormatFloat(float64(r), 'f', -1, 64) + "b"
		}
	}
	return f
}
