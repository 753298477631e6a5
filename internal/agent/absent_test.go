package agent

import (
	"strings"
	"testing"

	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"
)

// TestAbsentCgroupIsNotAnError: the cluster file names a service that does not run on this host
// (every host gets the same file). Each sync looks for it again, and it is neither an apply error
// nor logged every time: one line says it is not here yet, and a gauge counts it.
func TestAbsentCgroupIsNotAnError(t *testing.T) {
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n" +
		"  cgroups:\n    - {path: system.slice/qjtest-absent.service, level: 5}\n"
	a, _, log, err := loggedAgent(t, "", file, Options{CgroupRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	a.cg = cgroups{applied: map[string]*assignment{}}
	for range 5 {
		a.syncCgroups()
	}
	if n := promtestutil.ToFloat64(a.m.applyErrors.WithLabelValues("assign")); n != 0 {
		t.Errorf("apply errors (assign) %v after 5 syncs with the cgroup absent, want 0", n)
	}
	if n := promtestutil.ToFloat64(a.m.absentCount); n != 1 {
		t.Errorf("qjump_agent_cgroups_absent %v, want 1", n)
	}
	if n := strings.Count(log.String(), "not on this host"); n != 1 || strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the log over 5 syncs says \"not on this host\" %d times (want 1), errors %v:\n%s",
			n, strings.Contains(log.String(), "level=ERROR"), log.String())
	}
}
