package tbtest

import (
	"path/filepath"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/host"
)

// RunCgroups lists the transient cgroups of `qjump run --mode cgroup` (qjump.slice/run-*) under
// every cgroup v2 mount, for a test to take before a run and compare after it: a wrapper killed
// before it removed its cgroup leaves one behind.
func RunCgroups() map[string]bool {
	found := map[string]bool{}
	for _, m := range host.CgroupMounts {
		paths, _ := filepath.Glob(filepath.Join(m, apputil.Slice, "run-*"))
		for _, p := range paths {
			found[p] = true
		}
	}
	return found
}

// NewCgroups is the cgroups of RunCgroups that are not in before.
func NewCgroups(before map[string]bool) []string {
	var made []string
	for p := range RunCgroups() {
		if !before[p] {
			made = append(made, p)
		}
	}
	return made
}
