package config

import (
	"testing"

	"github.com/qjump-net/qjump/internal/model"
)

// BySource puts what the user gave first and keeps validation's order within one source; name
// is told each value's source, and a refusal of one value is renamed alone.
func TestBySource(t *testing.T) {
	fe := &model.FieldError{Field: "hosts", Value: "1", Allowed: "x", Together: []model.Input{
		{Field: "hosts", Value: "1"}, {Field: "mesochronous", Value: "2"}, {Field: "packet", Value: "84B"},
		{Field: "rate", Value: "1T"}, {Field: "epsilon", Value: "0s"}}}
	from := map[string]Source{"hosts": FromBase, "mesochronous": FromFile, "packet": FromFlag, "rate": FromFile, "epsilon": FromBase}
	source := func(in model.Input) Source { return from[in.Field] }
	name := func(in model.Input, s Source) model.Input {
		in.From = map[Source]string{FromFlag: "flag", FromFile: "file", FromBase: "base"}[s]
		return in
	}
	got := BySource(fe, source, name)
	want := `invalid packet "84B" (flag), mesochronous "2" (file), rate "1T" (file), hosts "1" (base) and epsilon "0s" (base) together: x`
	if got.Error() != want || got.Field != "packet" || fe.Together[0].Field != "hosts" {
		t.Errorf("got %v (first %s), want %s, and fe unchanged (first %s)", got, got.Field, want, fe.Together[0].Field)
	}
	one := BySource(&model.FieldError{Field: "rate", Value: "1T", Allowed: "x"}, source,
		func(in model.Input, s Source) model.Input { in.Field += "_from_file"; return in })
	if want := `invalid rate_from_file "1T": x`; one.Error() != want {
		t.Errorf("one value: %v, want %s", one, want)
	}
}
