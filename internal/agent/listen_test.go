package agent

import (
	"strings"
	"testing"
)

// TestListenOverrideIsLogged: --listen (as the shipped DaemonSet passes it) overrides the file's
// agent.listen. An operator who narrows the file's address must be told that it is not the one
// served on, at start and when an edit changes it, rather than find the agent on every address.
func TestListenOverrideIsLogged(t *testing.T) {
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n  listen: \"127.0.0.1:9790\"\n"
	a, path, log, err := loggedAgent(t, "", file, Options{Listen: ":9781"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Listen() != ":9781" {
		t.Errorf("serves on %s, want --listen's :9781", a.Listen())
	}
	if !strings.Contains(log.String(), "overridden by --listen") || !strings.Contains(log.String(), "127.0.0.1:9790") {
		t.Errorf("no word at start that --listen overrides agent.listen 127.0.0.1:9790:\n%s", log.String())
	}
	log.Reset()
	a.onFile(fileChange{data: []byte(strings.Replace(file, "9790", "9791", 1))})
	if !strings.Contains(log.String(), "overridden by --listen") || !strings.Contains(log.String(), "127.0.0.1:9791") {
		t.Errorf("no word after an edit that --listen overrides agent.listen 127.0.0.1:9791:\n%s", log.String())
	}

	// The same address in both, or none in the file: nothing to say.
	same := strings.Replace(file, "127.0.0.1:9790", ":9781", 1)
	if _, _, log, err = loggedAgent(t, path, same, Options{Listen: ":9781"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "overridden") {
		t.Errorf("warned with the same address in --listen and the file:\n%s", log.String())
	}
}

// TestCheckListen: port 0 (a free port, chosen by the kernel and logged) is an address to listen
// on, for tests and agents side by side; what is no port at all is refused with what is allowed.
func TestCheckListen(t *testing.T) {
	for _, addr := range []string{":9781", "127.0.0.1:9781", ":0", "127.0.0.1:0", "[::1]:0", "localhost:65535"} {
		if err := CheckListen(addr); err != nil {
			t.Errorf("CheckListen(%q): %v, want accepted", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:-1", ":65536", ":99999", ":http", ":+80", "127.0.0.1:", "nonsense", ""} {
		err := CheckListen(addr)
		if err == nil || !strings.Contains(err.Error(), "a port from 0 to 65535") {
			t.Errorf("CheckListen(%q): %v, want refused naming the ports allowed", addr, err)
		}
	}
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [eth0]\n  listen: \"127.0.0.1:0\"\n"
	if s, err := Parse("t", []byte(file)); err != nil || s.Agent.Listen != "127.0.0.1:0" {
		t.Errorf("agent.listen 127.0.0.1:0: %+v, %v; want accepted", s.Agent, err)
	}
}
