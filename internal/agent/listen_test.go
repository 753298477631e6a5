package agent

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"
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

// TestListenEditUndone: agent.listen edited to another address and back. The first edit takes
// effect at the next restart, and says so; the second leaves the agent where it serves, and must
// not say it will move there: it was compared with the last file, not with the address served
// (review, helper-85). A file without agent.listen is the default's.
func TestListenEditUndone(t *testing.T) {
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n  listen: \"127.0.0.1:9790\"\n"
	a, _, log, err := loggedAgent(t, "", file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const later = "takes effect when the agent restarts"
	a.onFile(fileChange{data: []byte(strings.Replace(file, "127.0.0.1:9790", "127.0.0.2:9790", 1))})
	if !strings.Contains(log.String(), later) {
		t.Errorf("an edit to another address: no word that it takes effect at the next restart:\n%s", log)
	}
	log.Reset()
	a.onFile(fileChange{data: []byte(file)})
	if strings.Contains(log.String(), later) {
		t.Errorf("the edit undone: said to take effect later, where the agent serves already:\n%s", log)
	}

	// agent.listen removed: the default serves after a restart, and the log names it.
	log.Reset()
	a.onFile(fileChange{data: []byte(strings.Replace(file, "  listen: \"127.0.0.1:9790\"\n", "", 1))})
	if !strings.Contains(log.String(), later) || !strings.Contains(log.String(), "listen="+DefaultListen) {
		t.Errorf("agent.listen removed: no word that the default %s takes effect at the next restart:\n%s", DefaultListen, log)
	}

	const none = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n"
	d, _, log, err := loggedAgent(t, "", none, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.onFile(fileChange{data: []byte(none + "  listen: \"" + DefaultListen + "\"\n")})
	if strings.Contains(log.String(), later) {
		t.Errorf("agent.listen %s added, where the agent serves by default: said to take effect later:\n%s", DefaultListen, log)
	}
}

// TestCheckListen: port 0 (a free port, chosen by the kernel and logged) is an address to listen
// on, for tests and agents side by side; what is no port at all is refused with what is allowed.
func TestCheckListen(t *testing.T) {
	for _, addr := range []string{":9781", "127.0.0.1:9781", ":0", "127.0.0.1:0", "[::1]:0", "localhost:65535",
		"[fe80::1%eth0]:9781", "no.such.host.invalid:9781", "node-1.example:9781", "my_host:9781"} {
		if err := CheckListen(addr); err != nil {
			t.Errorf("CheckListen(%q): %v, want accepted", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:-1", ":65536", ":99999", ":http", ":+80", "127.0.0.1:", "nonsense", "",
		"1.2.3:80", "1.2.3.4.5:80", "a..b:80", "-node:80", "no such:80", "[::1%]:80"} {
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

// TestListenEditThisHostCannotServe: an edit of agent.listen takes effect at the next restart,
// where an address the host cannot listen on made the agent exit, again and again under its
// unit. Such an edit is an invalid file now: logged, counted for QJumpConfigFileInvalid, the
// running configuration kept. Under --listen the file's address is never used, and not checked.
func TestListenEditThisHostCannotServe(t *testing.T) {
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n  listen: \"127.0.0.1:9790\"\n"
	a, _, log, err := loggedAgent(t, "", file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := []string{"203.0.113.9:9781", "1.2.3:80"} // TEST-NET-3: no host's
	// A name that does not exist is refused where the resolver can say so: it may have no server.
	var dnsErr *net.DNSError
	_, err = net.DefaultResolver.LookupNetIP(context.Background(), "ip", "no.such.host.invalid")
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		bad = append(bad, "no.such.host.invalid:9781")
	} else {
		t.Logf("no.such.host.invalid not tried: the resolver says %v", err)
	}
	for i, listen := range bad {
		a.onFile(fileChange{data: []byte(strings.Replace(file, "127.0.0.1:9790", listen, 1))})
		if n := promtestutil.ToFloat64(a.m.configErrors.WithLabelValues("invalid")); n != float64(i+1) {
			t.Errorf("agent.listen %s: invalid edits counted %v, want %d", listen, n, i+1)
		}
		if ok := promtestutil.ToFloat64(a.m.lastLoadOK); ok != 0 {
			t.Errorf("agent.listen %s: last load successful %v, want 0", listen, ok)
		}
		if got := a.current.Load().Agent.Listen; got != "127.0.0.1:9790" {
			t.Errorf("agent.listen %s: running %s, want the running 127.0.0.1:9790 kept", listen, got)
		}
		if !strings.Contains(log.String(), "config invalid") || !strings.Contains(log.String(), `agent.listen \"`+listen) {
			t.Errorf("agent.listen %s: not logged as an invalid file naming the key:\n%s", listen, log.String())
		}
	}
	for _, listen := range []string{":9782", "127.0.0.2:9781", "[::1]:9781", "localhost:9781"} {
		a.onFile(fileChange{data: []byte(strings.Replace(file, "127.0.0.1:9790", listen, 1))})
		if got := a.current.Load().Agent.Listen; got != listen {
			t.Errorf("agent.listen %s: running %s, want the edit taken", listen, got)
		}
	}

	overridden, _, _, err := loggedAgent(t, "", file, Options{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	overridden.onFile(fileChange{data: []byte(strings.Replace(file, "127.0.0.1:9790", bad[0], 1))})
	if got := overridden.current.Load().Agent.Listen; got != bad[0] {
		t.Errorf("under --listen, agent.listen %s: running %s, want the edit taken (never listened on)", bad[0], got)
	}
}
