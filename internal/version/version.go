// Package version says which qjump this is: the module's version and the commit it was built
// from, as the Go toolchain stamps them into a binary built in a git checkout (go build's
// -buildvcs, on by default), so no linker flags and no release step are needed. An operator asks
// a node which qjump runs there (qjump version, the agent's build_info metric), and a results file
// says which simulator or testbed produced its figures.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is what a binary knows of its own build. Revision is empty where nothing was stamped: go
// run, go test, or a tree outside git.
type Info struct {
	Version  string `json:"version"`            // the module's version, "(devel)" for a checkout
	Revision string `json:"revision,omitempty"` // the commit (git's full hash)
	Time     string `json:"time,omitempty"`     // the commit's time, RFC 3339
	Modified bool   `json:"modified,omitempty"` // the checkout had changes not committed, or files git does not track
	Go       string `json:"go"`                 // the toolchain that built it
}

// Get is this binary's Info.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "(devel)", Go: runtime.Version()}
	}
	return fromBuildInfo(bi)
}

// fromBuildInfo reads Info from what the toolchain stamped.
func fromBuildInfo(bi *debug.BuildInfo) Info {
	i := Info{Version: bi.Main.Version, Go: bi.GoVersion}
	if i.Version == "" {
		i.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// Commit is the commit in git's short form, "+modified" when the checkout had changes; where
// none was stamped, the module's version (go install from the module proxy, whose version names
// the commit or the release), and "unknown" for a build of a checkout that stamped nothing.
func (i Info) Commit() string {
	switch {
	case i.Revision != "":
		c := i.shortRevision()
		if i.Modified {
			c += "+modified"
		}
		return c
	case i.Version != "" && i.Version != "(devel)":
		return i.Version
	}
	return "unknown"
}

// shortRevision is the commit in git's short form (12 hex digits).
func (i Info) shortRevision() string { return i.Revision[:min(12, len(i.Revision))] }

// String is the one line qjump version prints: "qjump v0.0.0-20261128202336-a39ba439d937 (commit
// a39ba439d937 of 2026-11-28T20:23:36Z), go1.26.8". Go 1.24 and later put the commit in a
// checkout's version too (a pseudo-version, "+dirty" with changes); the commit is said again for
// builds that stamp no version, and for people. A build from the module proxy has a version and
// no commit stamped, and says only the version.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "qjump %s", i.Version)
	switch {
	case i.Revision != "":
		fmt.Fprintf(&b, " (commit %s", i.shortRevision())
		if i.Time != "" {
			fmt.Fprintf(&b, " of %s", i.Time)
		}
		if i.Modified {
			b.WriteString(", changes not committed")
		}
		b.WriteString(")")
	case i.Commit() == "unknown":
		b.WriteString(" (commit unknown)")
	}
	fmt.Fprintf(&b, ", %s", i.Go)
	return b.String()
}
