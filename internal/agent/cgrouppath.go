package agent

import (
	"github.com/qjump-net/qjump/internal/apputil"
)

// resolveCgroups sets spec.cgroupPaths: each rule's path under root, read as `qjump assign` reads
// --cgroup (apputil.CgroupPath).
func resolveCgroups(spec *Spec, root string) error {
	rules := spec.Agent.Cgroups
	paths := make([]string, len(rules))
	for i, r := range rules {
		paths[i] = apputil.CgroupPath(root, r.Path)
	}
	spec.cgroupPaths = paths
	return nil
}
