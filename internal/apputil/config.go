package apputil

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"time"

	"gopkg.in/yaml.v3"

	"github.com/qjump-net/qjump/internal/model"
)

// configFile is a QJump configuration on disk, in the units `qjump calc` takes:
//
//	hosts: 12
//	rate: 10G
//	packet: 1500B
//	epsilon: 4us
//	mesochronous: 2
//	factors: 7=1,5=6,0=unlimited
//
// It is how --sndbuf auto learns the budgets until the dataplane can report the configuration of
// an attached device.
type configFile struct {
	Hosts        int    `yaml:"hosts"`
	Rate         string `yaml:"rate"`
	Packet       string `yaml:"packet"`
	Epsilon      string `yaml:"epsilon"`
	Mesochronous int    `yaml:"mesochronous"`
	Factors      string `yaml:"factors"`
}

// LoadConfig reads a configuration file; a bad value is a *model.FieldError naming its key.
func LoadConfig(path string) (model.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return model.Config{}, fmt.Errorf("read config: %w", err)
	}
	var f configFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return model.Config{}, &model.FieldError{Field: "config", Value: path, Allowed: err.Error()}
	}
	return f.config()
}

func (f configFile) config() (model.Config, error) {
	cfg := model.Config{
		Hosts:        f.Hosts,
		Packet:       model.FullFrame,
		Mesochronous: model.DefaultMesochronous,
		Factors:      model.DefaultFactors(),
	}
	if f.Mesochronous != 0 {
		cfg.Mesochronous = f.Mesochronous
	}
	var err error
	if cfg.Rate, err = parseField("rate", f.Rate, model.ParseRate, model.Rate(0)); err != nil {
		return cfg, err
	}
	if cfg.Packet, err = parseField("packet", f.Packet, model.ParseBytes, cfg.Packet); err != nil {
		return cfg, err
	}
	if cfg.Epsilon, err = parseField("epsilon", f.Epsilon, model.ParseDuration, time.Duration(0)); err != nil {
		return cfg, err
	}
	if cfg.Factors, err = parseField("factors", f.Factors, model.ParseFactors, cfg.Factors); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// parseField parses an optional key with a model parser, keeping def when the key is absent.
func parseField[T any](key, value string, parse func(string) (T, error), def T) (T, error) {
	if value == "" {
		return def, nil
	}
	v, err := parse(value)
	if err != nil {
		return def, &model.FieldError{Field: key, Value: value, Allowed: err.Error()}
	}
	return v, nil
}

// ErrUnlimitedLevel says that a level has no budget, so no send buffer follows from it.
var ErrUnlimitedLevel = errors.New("level is unlimited: it has no budget to size a send buffer from")

// AutoSndBuf sizes a send buffer for level l: two epochs of the level's budget, 2·f_l·P bytes.
//
// A socket at level l may put f_l·P bytes on the wire per epoch; bytes buffered beyond that wait
// in the host for later epochs, adding latency the application cannot see. Two budgets hold one
// epoch being sent and the next being written, which is also the bandwidth-delay product at the
// level's rate T_l = f_l·P·8/E for a round trip of up to 2E, so TCP can still reach T_l. The kernel
// doubles the value for its own bookkeeping and never goes below its minimum (about 4.5 kB).
func AutoSndBuf(cfg model.Config, l model.Level) (int, error) {
	f, ok := cfg.Factors[l]
	if !ok {
		return 0, fmt.Errorf("size send buffer: level %d has no factor in the configuration (%s)", l, cfg.Factors)
	}
	budget, ok := cfg.Budget(f)
	if !ok {
		return 0, fmt.Errorf("size send buffer for level %d: %w", l, ErrUnlimitedLevel)
	}
	const maxSndBuf = 1 << 30 // SO_SNDBUF takes an int, and the kernel doubles it
	return int(min(2*int64(budget), maxSndBuf)), nil
}

// ParseSndBuf reads --sndbuf: a size such as 64k or 65536B.
func ParseSndBuf(s string) (int, error) {
	b, err := model.ParseBytes(s)
	if err != nil || b < 1 || b > 1<<30 {
		if err == nil {
			err = errors.New("need 1B to 1GiB")
		}
		return 0, fmt.Errorf("%w (or \"auto\")", err)
	}
	return int(b), nil
}
