package agent

import (
	"fmt"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/model"
)

// resolveCgroups sets spec.cgroupPaths: each rule's path under root, read as `qjump assign` reads
// --cgroup (apputil.CgroupPath). It refuses, as an invalid file, what the file alone cannot show:
// a path outside the root (/sys/fs/cgroup/../../tmp/x, /tmp/x) or the root itself, and two entries that name one cgroup in different spellings (rvbtest-a and
// /sys/fs/cgroup/rvbtest-a), of which the later used to win silently, the level and ceiling of the
// first dropped.
func resolveCgroups(spec *Spec, root string) error {
	rules := spec.Agent.Cgroups
	paths := make([]string, len(rules))
	first := map[string]int{}
	for i, r := range rules {
		field := fmt.Sprintf("agent.cgroups[%d].path", i)
		path := apputil.CgroupPath(root, r.Path)
		if !apputil.InCgroupRoot(root, path) {
			return &model.FieldError{Field: field, Value: r.Path, Allowed: outsideRoot(root, path)}
		}
		if j, again := first[path]; again {
			return &model.FieldError{Field: field, Value: r.Path, Allowed: fmt.Sprintf(
				"each cgroup once: agent.cgroups[%d].path %q is the same cgroup, %s", j, rules[j].Path, apputil.CgroupName(root, path))}
		}
		first[path] = i
		paths[i] = path
	}
	spec.cgroupPaths = paths
	return nil
}

// outsideRoot says what is wrong with path, which is not a cgroup below root.
func outsideRoot(root, path string) string {
	if path == root {
		return "the cgroup v2 root: every process of the host would be on the level, over the level of every cgroup " +
			"below it; give a service's or a container's cgroup (for the host's unclassified traffic, the file has default_level)"
	}
	return fmt.Sprintf("need a cgroup below the cgroup v2 root %s (absolute, or relative to the root): it names %s, outside it",
		root, path)
}
