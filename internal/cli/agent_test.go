package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestAgentBadInput: what an operator can fix exits 2 with the field named, before the agent
// touches anything.
func TestAgentBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("hosts: 2\nrate: 1G\nagent: {interfaces: [eth0], cgroups: [{path: a, level: 9}]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.yaml") // a file for up, without the agent's section
	if err := os.WriteFile(plain, []byte("hosts: 2\nrate: 1G\n"), 0o600); err != nil {
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
		{[]string{"agent", "--config", plain}, `the file has no agent: section, which qjump agent needs to know the interfaces ` +
			`to run QJump on: add one such as "agent: {interfaces: [eth0]}"`},
		{[]string{"agent", "--config", good, "--listen", "nonsense"}, "invalid --listen"},
		{[]string{"agent", "--config", good, "--cgroup-root", dir}, "invalid --cgroup-root"},
		{[]string{"agent", "--config", good, "--listen", "127.0.0.1:99999"}, "a port from 0 to 65535"},
		{[]string{"agent", "--config", good, "--listen", "127.0.0.1:-1"}, "a port from 0 to 65535"},
		// With the bad file, an agent that let the empty --state-dir through stops at the file
		// (and this fails) rather than starting.
		{[]string{"agent", "--config", bad, "--state-dir", ""}, `invalid --state-dir "": need a directory for the agent's state`},
	}
	for _, tc := range cases {
		_, errOut, status := run(t, tc.args...)
		if status != exitUsage || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q; want 2 and one line naming %q", tc.args, status, errOut, tc.want)
		}
	}
}

// TestAgentRefusesWithoutPrivilege: an agent that cannot touch the dataplane says what it lacks
// and exits 1 at once, as nobody and as root without CAP_NET_ADMIN and CAP_SYS_ADMIN. It used
// to run on, failing every interface at every reconcile. A file with cgroups, whose root the agent
// must mount privately under ip netns exec, is not blamed for the mount that fails for want of
// privilege: it was, exit 2 (review, helper-85).
func TestAgentRefusesWithoutPrivilege(t *testing.T) {
	ns := newHost(t)
	dir := testutil.SharedTempDir(t) // nobody must read the files
	body := "hosts: 4\nrate: 1G\nagent: {interfaces: [eth0], listen: \"127.0.0.1:9781\"}\n"
	withCgroups := "hosts: 4\nrate: 1G\nagent: {interfaces: [eth0], listen: \"127.0.0.1:9781\", " +
		"cgroups: [{path: system.slice/qjtest.service, level: 5}]}\n"
	var files []string
	for name, content := range map[string]string{"cluster.yaml": body, "cgroups.yaml": withCgroups} {
		files = append(files, filepath.Join(dir, name))
		if err := os.WriteFile(files[len(files)-1], []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		prefix  []string
		missing string
	}{
		{"nobody", []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"},
			"CAP_NET_ADMIN and CAP_SYS_ADMIN"},
		{"root without CAP_NET_ADMIN", []string{"setpriv", "--inh-caps=-all", "--bounding-set=-net_admin"}, "lacks CAP_NET_ADMIN:"},
	}
	before := snapshot(t, ns)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, file := range files {
				// Bounded: an agent that does not refuse runs until it is killed.
				prefix := append([]string{"timeout", "--signal=KILL", "10"}, tc.prefix...)
				_, errOut, code := qjumpInAfter(t, ns, nil, prefix, "agent", "--config", file, "--state-dir", filepath.Join(dir, "state"))
				if code != exitRuntime || !strings.Contains(errOut, tc.missing) || !strings.Contains(errOut, "run it as root") ||
					strings.Count(errOut, "\n") != 1 {
					t.Errorf("%s: exit %d (-1: still running, killed after 10s), stderr %q; want 1 and one line saying %q and how to run it",
						filepath.Base(file), code, errOut, tc.missing)
				}
				if after := snapshot(t, ns); after != before {
					t.Errorf("%s: eth0 changed.\nbefore:\n%s\nafter:\n%s", filepath.Base(file), before, after)
				}
			}
		})
	}
}
