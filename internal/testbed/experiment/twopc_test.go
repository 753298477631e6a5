package experiment

import (
	"testing"

	"github.com/qjump-net/qjump/internal/apps/twopc"
)

// The failure arm measures again only when the victim itself was declared dead before its freeze.
func TestDeclaredBeforeFreeze(t *testing.T) {
	const victim, stop = 6, 1_000
	sum := func(fs ...twopc.FailureJSON) twopc.Summary { return twopc.Summary{Failures: fs} }
	for _, c := range []struct {
		name string
		sum  twopc.Summary
		stop int64
		want bool
	}{
		{"victim before the freeze", sum(twopc.FailureJSON{Server: victim, DetectedNS: stop - 1}), stop, true},
		{"victim after the freeze", sum(twopc.FailureJSON{Server: victim, DetectedNS: stop + 1}), stop, false},
		{"another server before the freeze", sum(twopc.FailureJSON{Server: 2, DetectedNS: stop - 1}), stop, false},
		{"never frozen", sum(twopc.FailureJSON{Server: victim, DetectedNS: 5}), 0, false},
		{"no failure", sum(), stop, false},
	} {
		if _, got := declaredBeforeFreeze(c.sum, victim, c.stop); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
