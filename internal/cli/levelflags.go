package cli

import (
	"github.com/spf13/pflag"

	"github.com/qjump-net/qjump/internal/apputil"
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
// --config or the dataplane.
func (f *levelFlags) settings() (apputil.Settings, error) {
	s := apputil.Settings{Level: f.level, Enforce: f.enforce}
	var err error
	if s.MaxLevel, err = f.max.ceiling(f.level); err != nil {
		return s, err
	}
	s.SndBuf, err = sndBufFlag(f.sndbuf, budgetSource{f.config, f.dev}, f.level)
	return s, err
}
