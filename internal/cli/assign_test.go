package cli

import "testing"

func TestAssignOptions(t *testing.T) {
	got := parseOptions(t, newAssignCommand, "--cgroup", "system.slice/x.service", "--level", "5",
		"--max-level", "6", "--sndbuf", "64k", "--enforce")
	if got.cgroup != "system.slice/x.service" || got.level != 5 || got.sndbuf != "64k" || !got.enforce {
		t.Errorf("parsed %+v", got)
	}
	if got.max.level != 6 || !got.max.flag.Changed {
		t.Errorf("--max-level 6 parsed as %+v", got.max)
	}
}

func TestUnassignOptions(t *testing.T) {
	if got := parseOptions(t, newUnassignCommand, "--cgroup", "/sys/fs/cgroup/a"); got.cgroup != "/sys/fs/cgroup/a" {
		t.Errorf("parsed %+v", got)
	}
}
