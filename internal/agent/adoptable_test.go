package agent

import (
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// An agent leaves a device untouched only when it runs the file's configuration, its egress tree
// whole, with the program of the agent's own build: an agent upgraded since the program was loaded
// reloads it, or the upgrade's fixes would wait for the next change of the file.
func TestAdoptableNeedsThisBuildsProgram(t *testing.T) {
	want := config.Default()
	want.Model.Hosts, want.Model.Rate, want.Model.Packet = 12, 10e9, 1514
	want.Model.Factors = model.Factors{7: model.Limited(1), 0: model.Unlimited()}
	other := want
	other.Model.Hosts = 24
	runs := dataplane.Status{Device: "eth0", Attached: true, Config: want, Program: dataplane.ProgramBuild()}
	for _, c := range []struct {
		name string
		st   func(dataplane.Status) dataplane.Status
		want bool
	}{
		{"the file's configuration, this build's program", func(s dataplane.Status) dataplane.Status { return s }, true},
		{"another build's program", func(s dataplane.Status) dataplane.Status { s.Program = "0123456789ab"; return s }, false},
		{"a program of a version that recorded no build", func(s dataplane.Status) dataplane.Status { s.Program = ""; return s }, false},
		{"another configuration", func(s dataplane.Status) dataplane.Status { s.Config = other; return s }, false},
		{"the egress tree gone", func(s dataplane.Status) dataplane.Status { s.TreeGone = "deleted"; return s }, false},
	} {
		if got := adoptable(c.st(runs), want); got != c.want {
			t.Errorf("%s: adoptable %v, want %v", c.name, got, c.want)
		}
	}
}
