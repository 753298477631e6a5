package version

import (
	"runtime/debug"
	"testing"
)

// stamped is what go build stamps into a binary built in a git checkout.
func stamped(modified string) *debug.BuildInfo {
	return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "a39ba43d1e2f3c4b5a697887766554433221100f"},
		{Key: "vcs.time", Value: "2026-11-28T20:30:49Z"},
		{Key: "vcs.modified", Value: modified},
	}}
}

// A binary built in a git checkout says its commit, its time and whether the tree had changes; a
// build with nothing stamped (go run, go test) says the commit is unknown rather than nothing.
func TestFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		name         string
		bi           *debug.BuildInfo
		commit, line string
	}{
		{"stamped", stamped("false"), "a39ba43d1e2f",
			"qjump (devel) (commit a39ba43d1e2f of 2026-11-28T20:30:49Z), go1.26.8"},
		{"modified", stamped("true"), "a39ba43d1e2f+modified",
			"qjump (devel) (commit a39ba43d1e2f of 2026-11-28T20:30:49Z, changes not committed), go1.26.8"},
		{"nothing stamped", &debug.BuildInfo{GoVersion: "go1.26.8"}, "unknown",
			"qjump (devel) (commit unknown), go1.26.8"},
		// go install from the module proxy: a version, no vcs stamp.
		{"from the module proxy", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261128202336-a39ba439d937"}},
			"v0.0.0-20261128202336-a39ba439d937", "qjump v0.0.0-20261128202336-a39ba439d937, go1.26.8"},
	} {
		i := fromBuildInfo(c.bi)
		if got := i.Commit(); got != c.commit {
			t.Errorf("%s: Commit() = %q, want %q", c.name, got, c.commit)
		}
		if got := i.String(); got != c.line {
			t.Errorf("%s: String() = %q, want %q", c.name, got, c.line)
		}
	}
}
