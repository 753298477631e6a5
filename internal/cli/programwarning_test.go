package cli

import (
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/agent"
	"github.com/qjump-net/qjump/internal/dataplane"
)

// status warns when a device runs the program of another qjump build (one upgraded since up),
// saying which and what loads this one's: a reload by hand, or the agent that runs QJump there;
// nothing when the program is this build's, or when the hook is gone (the next up loads this
// build's anyway).
func TestProgramWarning(t *testing.T) {
	agentSees := agentSight{said: true, agent: agent.Running{Pid: 42, StateDir: "/run/qjump-agent", Devices: []string{"eth0"}}}
	this := dataplane.ProgramBuild()
	for _, c := range []struct {
		name    string
		program string
		hooked  bool
		seen    agentSight
		says    []string // "" says nothing
	}{
		{"this build's", this, true, agentSight{}, nil},
		{"without its hook", "0123456789ab", false, agentSight{}, nil},
		{"another build's", "0123456789ab", true, agentSight{},
			[]string{"eth0 runs program 0123456789ab of another qjump build, not this qjump's (" + this + ")", "qjump reload --dev eth0 loads this one's"}},
		{"one that recorded no build", "", true, agentSight{},
			[]string{"eth0 runs the program of a qjump version that recorded no build", "qjump reload --dev eth0"}},
		{"another build's, the agent's device", "0123456789ab", true, agentSees,
			[]string{"The qjump agent (pid 42, state directory /run/qjump-agent) loads its own build's at its next resync"}},
	} {
		st := dataplane.Status{Device: "eth0", Attached: c.hooked, Program: c.program}
		got := programWarning(st, c.seen)
		if len(c.says) == 0 && got != "" {
			t.Errorf("%s: warns %q, want nothing", c.name, got)
		}
		for _, s := range c.says {
			if !strings.Contains(got, s) {
				t.Errorf("%s: warns %q, want it to say %q", c.name, got, s)
			}
		}
	}
}
