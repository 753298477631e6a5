package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentBadInput: what an operator can fix exits 2 with the field named, before the agent
// touches anything.
func TestAgentBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: [{path: a, level: 9}]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("hosts: 2\nrate: 1G\nagent: {interfaces: [eth0]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"agent"}, "config"},
		{[]string{"agent", "--config", filepath.Join(dir, "missing.yaml")}, "no such file"},
		{[]string{"agent", "--config", bad}, "agent.cgroups[0].level"},
		{[]string{"agent", "--config", good, "--watch-pods", "--node-name", ""}, "--node-name"},
		{[]string{"agent", "--config", good, "extra"}, `agent takes no arguments, got "extra": every setting is a flag`},
		{[]string{"calc", "--config", bad}, "agent.cgroups[0].level"}, // calc checks what every agent would refuse
		{[]string{"agent", "--config", good, "--listen", "nonsense"}, "invalid --listen"},
		{[]string{"agent", "--config", good, "--cgroup-root", dir}, "invalid --cgroup-root"},
		{[]string{"agent", "--config", good, "--listen", "127.0.0.1:99999"}, "a port from 1 to 65535"},
	}
	for _, tc := range cases {
		_, errOut, status := run(t, tc.args...)
		if status != exitUsage || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q; want 2 and one line naming %q", tc.args, status, errOut, tc.want)
		}
	}
}
