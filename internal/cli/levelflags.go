package cli

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// levelFlags are the flags run and assign share: the level and what its sockets get with it.
type levelFlags struct {
	level   model.Level
	max     maxLevel
	sndbuf  string
	config  string
	dev     string
	enforce bool
}

// levelFlagsHelp is the wording of levelFlags for one verb: whose sockets they are.
type levelFlagsHelp struct {
	whose   string // "CMD's", "the cgroup's": for --max-level
	sndbuf  string // what --sndbuf sets
	enforce string // what --enforce does
}

func (f *levelFlags) register(fs *pflag.FlagSet, help levelFlagsHelp) {
	fs.Var(&unitValue[model.Level]{&f.level, model.ParseLevel}, "level", "the QJump level 0 (bulk) to 7 (guaranteed latency)")
	fs.StringVar(&f.sndbuf, "sndbuf", "", help.sndbuf+`, e.g. 64k, or "auto": two epochs of the level's budget`)
	fs.StringVar(&f.config, "config", "", "for --sndbuf auto: read the budgets from this configuration file (docs/configuration.md)")
	fs.StringVar(&f.dev, "dev", "", "for --sndbuf auto: read the budgets from the dataplane running on this interface")
	fs.BoolVar(&f.enforce, "enforce", false, help.enforce)
	f.max.register(fs, help.whose)
}

// settings builds what the sockets get from the flags; --sndbuf auto reads the budgets from
// --config or from active, the dataplane here.
func (f *levelFlags) settings(active activeConfigs) (apputil.Settings, error) {
	s := apputil.Settings{Level: f.level, Enforce: f.enforce}
	if err := checkDev(f.dev); err != nil {
		return s, err
	}
	if err := f.checkBudgetSource(); err != nil {
		return s, err
	}
	var err error
	if s.MaxLevel, err = f.max.ceiling(f.level); err != nil {
		return s, err
	}
	s.SndBuf, err = sndBufFlag(f.sndbuf, budgetSource{f.config, f.dev, active}, f.level)
	return s, err
}

// activeConfigs is what the dataplane runs in this network namespace, read once per command for
// both --sndbuf auto and the mapping warning.
type activeConfigs struct {
	devices []dataplane.DeviceConfig
	err     error
}

func readActiveConfigs() activeConfigs {
	devices, err := dataplane.ActiveConfigs()
	return activeConfigs{devices, err}
}

// checkBudgetSource refuses --dev and --config without --sndbuf auto: they only say where auto
// reads the level's budget, and the level and ceiling hold on every interface QJump is up on
// whatever they name, so given alone they did nothing, silently, to a user who likely meant the
// sockets to be tied to that interface or configuration.
func (f *levelFlags) checkBudgetSource() error {
	if f.sndbuf == "auto" {
		return nil
	}
	for _, src := range []struct{ flag, value, what string }{
		{"dev", f.dev, "the interface whose running dataplane gives the level's budget"},
		{"config", f.config, "the configuration file that gives the level's budget"},
	} {
		if src.value != "" {
			return usageErrorf("--%s %s is for --sndbuf auto (%s to size SO_SNDBUF from) and does nothing "+
				"without it: add --sndbuf auto, or leave --%s out", src.flag, src.value, src.what, src.flag)
		}
	}
	return nil
}

// warnMapping says when the dataplane here would not count priority L as level L, or would send
// nothing of it under the ceiling. Devices that cannot be read (no dataplane, no privilege) give
// no warning.
func warnMapping(stderr io.Writer, active activeConfigs, s apputil.Settings) {
	warn(stderr, apputil.MappingWarnings(active.devices, s.Level, s.MaxLevel))
}

// noDataplaneWarning says so when QJump is up on no interface of this network namespace: the
// sockets get the level's priority, which nothing here limits, marks or counts. A forgotten `ip
// netns exec`, or the README's testbed example run on a testbed built without --qjump, put ping
// "at level 7" into the switch's level-0 queue without a word (reviews, helper-98 and helper-99).
// A cgroup's programs hold in every namespace, and CMD may enter another (ip netns exec), so it is
// a possibility, not a fault.
// Nothing is said where the dataplane cannot be read (no privilege: a user's run).
func noDataplaneWarning(active activeConfigs, s apputil.Settings, assign bool) []string {
	if active.err != nil || len(active.devices) > 0 {
		return nil
	}
	w := fmt.Sprintf("QJump is up on no interface of this network namespace (qjump status lists none): sockets get "+
		"priority %d, which nothing here limits, marks or counts; run qjump up first, or this command where QJump "+
		"is up (ip netns exec NS qjump ...)", s.Level)
	if assign {
		return []string{w + ", unless the cgroup's programs send from another network namespace that runs it"}
	}
	// CMD may enter one itself: qjump run --level 7 -- ip netns exec NS CMD (review, helper-100).
	return []string{w + ", unless CMD sends from another network namespace that runs it"}
}
