package apputil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// ErrUnlimitedLevel says that a level has no budget, so no send buffer follows from it.
var ErrUnlimitedLevel = errors.New("unlimited: it has no budget to size a send buffer from")

// AutoSndBuf sizes a send buffer for level l: two epochs of the level's budget, 2·f_l·P bytes.
//
// A socket at level l may put f_l·P bytes on the wire per epoch; bytes buffered beyond that wait
// in the host for later epochs, adding latency the application cannot see. Two budgets hold one
// epoch being sent and the next being written, which is also the bandwidth-delay product at the
// level's rate T_l = f_l·P·8/E for a round trip of up to 2E, so TCP can still reach T_l. The kernel
// doubles the value for its own bookkeeping and never goes below its minimum (about 4.5 kB).
//
// A level without a factor sends at its carrier (model.Factors.Carrier), so its budget is the
// carrier's.
func AutoSndBuf(cfg model.Config, l model.Level) (int, error) {
	carrier, ok := cfg.Factors.Carrier(l)
	if !ok {
		return 0, fmt.Errorf("size send buffer: no level has a factor in the configuration")
	}
	budget, ok := cfg.Budget(cfg.Factors[carrier])
	if !ok {
		// Name the level whose factor is unlimited: a level without a factor of its own is not
		// unlimited itself, it is sent at its carrier, and the user has to see which one that is.
		if carrier != l {
			return 0, fmt.Errorf("size send buffer for level %d: it is carried by level %d, which is %w", l, carrier, ErrUnlimitedLevel)
		}
		return 0, fmt.Errorf("size send buffer for level %d: the level is %w", l, ErrUnlimitedLevel)
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

// ErrNoActiveConfig is returned when no device runs the dataplane to read budgets from.
var ErrNoActiveConfig = errors.New("QJump is not up on any device in this network namespace")

// ErrSeveralActive is returned by ActiveModel when no device is named and QJump is up on more than one.
var ErrSeveralActive = errors.New("QJump is up on several devices in this network namespace")

// ActiveModel is the model the dataplane runs with on device, or, when device is empty, on the
// one device QJump is up on in this network namespace; active is what dataplane.ActiveConfigs read.
func ActiveModel(active []dataplane.DeviceConfig, device string) (model.Config, error) {
	if device != "" {
		for _, a := range active {
			if a.Device == device {
				return a.Config.Model, nil
			}
		}
		return model.Config{}, fmt.Errorf("%w on %s", dataplane.ErrNotUp, device)
	}
	switch len(active) {
	case 0:
		return model.Config{}, ErrNoActiveConfig
	case 1:
		return active[0].Config.Model, nil
	}
	names := make([]string, len(active))
	for i, a := range active {
		names[i] = a.Device
	}
	return model.Config{}, fmt.Errorf("%w (%s): say which with --dev", ErrSeveralActive, strings.Join(names, ", "))
}
