package apputil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// limitFiles are the limits an administrator puts on a cgroup (systemd's MemoryMax=,
// MemoryHigh=, CPUQuota=), which CMD leaves behind in cgroup mode: its cgroup is below Slice at
// the root, not below the cgroup qjump runs in. pids.max is not among them: systemd gives every
// unit one by default (TasksMax=), so a note about it would come with every run and say nothing.
var limitFiles = []string{"memory.max", "memory.high", "cpu.max"}

// leftLimits are the limits of the cgroup dir and its ancestors below root that are set, each as
// "FILE of /PATH (VALUE)": what CMD will not be under. None on a hybrid system, whose limits are
// in cgroup v1 and stay with CMD.
func leftLimits(root, dir string) []string {
	var out []string
	for d := filepath.Clean(dir); strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		for _, f := range limitFiles {
			b, err := os.ReadFile(filepath.Join(d, f))
			v := strings.TrimSpace(string(b))
			if err != nil || v == "max" || strings.HasPrefix(v, "max ") { // cpu.max: "max PERIOD"
				continue
			}
			rel, _ := filepath.Rel(root, d)
			out = append(out, fmt.Sprintf("%s of /%s (%s)", f, rel, v))
		}
	}
	return out
}
