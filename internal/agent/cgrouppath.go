package agent

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// findCgroupRoot sets the cgroup v2 root the agent finds cgroups under, unless --cgroup-root gave
// it: where the host mounts the hierarchy, else a private mount of it, as `qjump assign` does
// (apputil.CgroupRoot). Under `ip netns exec`, whose fresh /sys has no cgroup mount, the agent
// used to go on with no root and resolve the file's cgroups against its working directory. With
// no root at all, the agent runs if nothing needs one: a file's cgroup is then refused, at start
// or in an edit, naming why (resolveCgroups), and the pod watch refuses to start.
func (a *Agent) findCgroupRoot() error {
	a.releaseRoot = func() {}
	if a.opts.CgroupRoot != "" {
		// Cleaned, so that /sys/fs/cgroup/unified/ is read as the host's mount it is: with the
		// slash it was taken for a private root, and absolute paths were read another way.
		a.opts.CgroupRoot = filepath.Clean(a.opts.CgroupRoot)
		return nil
	}
	root, release, err := apputil.CgroupRoot()
	if err != nil {
		a.rootErr = err
		if a.opts.Pods != nil {
			return fmt.Errorf("watch pods: %w", err)
		}
		return nil
	}
	a.opts.CgroupRoot, a.releaseRoot = root, release
	return nil
}

// resolveCgroups sets spec.cgroupPaths: each rule's path under root, read as `qjump assign` reads
// --cgroup (apputil.CgroupPath). It refuses, as an invalid file, what the file alone cannot show:
// a path outside the root (/sys/fs/cgroup/../../tmp/x, /tmp/x) or the root itself, and two
// entries that name one cgroup in different spellings (rvbtest-a and /sys/fs/cgroup/rvbtest-a), of
// which the later used to win silently, the level and ceiling of the first dropped. rootErr is why
// there is no root, when root is "": no cgroup can be found then, and none is looked for in the
// agent's working directory.
func resolveCgroups(spec *Spec, root string, rootErr error) error {
	rules := spec.Agent.Cgroups
	paths := make([]string, len(rules))
	first := map[string]int{}
	for i, r := range rules {
		field := fmt.Sprintf("agent.cgroups[%d].path", i)
		if root == "" {
			return &model.FieldError{Field: field, Value: r.Path, Allowed: "need a cgroup v2 hierarchy to find it in: " + rootErr.Error()}
		}
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
	return fmt.Sprintf("need a cgroup below the cgroup v2 root%s (absolute, or relative to the root): it names %s, outside it",
		rootName(root), path)
}

// rootName is the cgroup v2 root as a message names it: its path, unless it is a private mount
// (apputil.CgroupRoot), whose /proc/self/fd/N means nothing to the reader.
func rootName(root string) string {
	if strings.HasPrefix(root, "/proc/self/fd/") {
		return ", mounted privately as none is at " + strings.Join(host.CgroupMounts, " or ")
	}
	return " " + root
}
