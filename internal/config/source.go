package config

import (
	"cmp"
	"slices"

	"github.com/qjump-net/qjump/internal/model"
)

// Source is where a value that validation refuses came from. The sources are layered (the base,
// then the configuration file, then the flags over it), and a message names what the user gave
// first: the order of the constants.
type Source int

const (
	FromFlag Source = iota // a command-line flag the user gave
	FromFile               // a key the configuration file gives
	FromBase               // neither: the default, or what the interface runs
)

// Source says whether the file gives the field in names (FromFile) or leaves it to the base
// (FromBase).
func (f File) Source(in model.Input) Source {
	if f.Gives(in.Field) {
		return FromFile
	}
	return FromBase
}

// BySource names a refusal by where each of its values came from: the values refused together
// ordered by source (stably, so that validation's order stays within one), and every value
// rewritten by name, which is told its source. The file (File.Apply) and the flags over it (the
// CLI's up, reload and calc) both name a refusal this way. fe is not changed.
func BySource(fe *model.FieldError, source func(model.Input) Source, name func(model.Input, Source) model.Input) *model.FieldError {
	ordered := *fe
	if len(fe.Together) > 0 {
		ordered.Together = fe.Inputs()
		slices.SortStableFunc(ordered.Together, func(a, b model.Input) int { return cmp.Compare(source(a), source(b)) })
	}
	return ordered.Rename(func(in model.Input) model.Input { return name(in, source(in)) })
}
