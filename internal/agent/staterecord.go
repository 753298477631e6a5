package agent

import (
	"path/filepath"
	"strings"

	"github.com/qjump-net/qjump/internal/apputil"
)

// recordCgroups is applied as the state file keeps it: each cgroup below root by its path
// relative to root, so that the record names the same cgroup to the next agent whatever root that
// one finds. An agent without the host's mount (under ip netns exec) mounts the hierarchy
// privately as /proc/self/fd/N, whose N is its own: recorded as it was, the next agent read
// another file for it, found no cgroup id, and counted an error.
func recordCgroups(root string, applied map[string]*assignment) map[string]*assignment {
	out := make(map[string]*assignment, len(applied))
	for path, a := range applied {
		if rel, err := filepath.Rel(root, path); root != "" && err == nil && filepath.IsLocal(rel) {
			path = rel
		}
		out[path] = a
	}
	return out
}

// appliedCgroups reads a state file's cgroups back as paths under root: a relative record joined
// to it; an absolute one, which agents before 2026-11-29 wrote, read as `qjump assign --cgroup`
// reads one (apputil.CgroupPath), or, where it names an earlier private mount's
// /proc/self/fd/N/..., the same path under root. With no root the records stay as they are: no
// cgroup can be found then anyway.
func appliedCgroups(root string, recorded map[string]*assignment) map[string]*assignment {
	out := make(map[string]*assignment, len(recorded))
	for key, a := range recorded {
		path := key
		if root != "" {
			if rest, ok := privateMountRest(key); ok {
				key = rest
			}
			path = apputil.CgroupPath(root, key)
		}
		out[path] = a
	}
	return out
}

// privateMountRest is the path below a private mount's root in p, /proc/self/fd/N/REST.
func privateMountRest(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/proc/self/fd/")
	if !ok {
		return "", false
	}
	_, rest, ok = strings.Cut(rest, "/")
	return rest, ok && rest != ""
}
