package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// The exit codes of qjump through the real binary, inside a network namespace (qjcli-<k>a, whose
// eth0 is joined to qjcli-<k>b), as a user runs it: bad input exits 2, a missing privilege,
// kernel feature or state exits 1, each with one line, and neither touches the device.

// TestMain removes the qjump binary the namespace tests built.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// testModel has an epoch of 10 ms and budgets of 30 kB per epoch at levels 7 and 5.
var testModel = []string{"--hosts", "10", "--rate", "24M", "--packet", "1500B", "--factors", "7=20,5=20,0=unlimited"}

func upArgs(extra ...string) []string {
	return append(append([]string{"up", "--dev", "eth0"}, testModel...), extra...)
}

var hostSeq atomic.Int32

// newHost makes the namespace pair and returns the namespace qjump runs in; everything qjump
// left there and the pair are removed when t ends.
func newHost(t *testing.T) string {
	t.Helper()
	testutil.RequirePriv(t, "network namespace tests")
	k := hostSeq.Add(1) + int32(os.Getpid()%100)*100
	p, err := nspair.New(context.Background(), fmt.Sprintf("qjcli-%d", k),
		fmt.Sprintf("198.18.%d.1", k%250), fmt.Sprintf("198.18.%d.2", k%250))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Through the binary first, so pins in the host bpffs go too, then the namespaces.
		_, _, _ = qjumpIn(t, p.A, nil, "down", "--dev", "eth0")
		p.Remove()
	})
	return p.A
}

// qjumpIn runs `ip netns exec ns qjump args...` with env added.
func qjumpIn(t *testing.T, ns string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return qjumpInAfter(t, ns, env, nil, args...)
}

// qjumpInAfter is qjumpIn with prefix (setpriv ...) running qjump.
func qjumpInAfter(t *testing.T, ns string, env, prefix []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	argv := append(append(append([]string{"netns", "exec", ns}, prefix...), testutil.QjumpBinary(t)), args...)
	return testutil.Run(t, env, "ip", argv...)
}

// snapshot is everything up may touch on eth0 of ns, with everything QJump pinned in any
// namespace: a pin left under the wrong namespace is found too. Other packages' namespace tests
// pin as well, so this holds only with one package at a time (`go test -p 1`, as make test runs).
func snapshot(t *testing.T, ns string) string {
	t.Helper()
	dir, err := host.StateDir()
	if err != nil {
		t.Fatal(err)
	}
	return testutil.DeviceSnapshot(t, ns, dir)
}

// TestBadInput: every bad input gets one clear line, exit 2 (bad input) or 1 (privilege, kernel,
// state), and leaves eth0 exactly as it was.
func TestBadInput(t *testing.T) {
	ns := newHost(t)
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notBPFFS := t.TempDir()
	cases := []struct {
		name   string
		env    []string
		prefix []string // runs before qjump inside the namespace
		args   []string
		code   int
		says   string
	}{
		// A missing interface is the same bad input for every verb that takes --dev.
		{name: "unknown interface", args: []string{"up", "--dev", "qjdp-nosuch", "--hosts", "2", "--rate", "1G"},
			code: 2, says: `no such interface "qjdp-nosuch"`},
		{name: "unknown interface: down", args: []string{"down", "--dev", "qjdp-nosuch"}, code: 2, says: `invalid --dev: no such interface "qjdp-nosuch"`},
		{name: "unknown interface: reload", args: []string{"reload", "--dev", "qjdp-nosuch", "--hosts", "3"},
			code: 2, says: `invalid --dev: no such interface "qjdp-nosuch"`},
		{name: "unknown interface: status", args: []string{"status", "--dev", "qjdp-nosuch"}, code: 2, says: `invalid --dev: no such interface "qjdp-nosuch"`},
		{name: "unknown interface: status --json", args: []string{"status", "--dev", "qjdp-nosuch", "--json"},
			code: 2, says: `invalid --dev: no such interface "qjdp-nosuch"`},
		{name: "unknown interface: status --watch", args: []string{"status", "--dev", "qjdp-nosuch", "--watch", "--count", "1"},
			code: 2, says: `invalid --dev: no such interface "qjdp-nosuch"`},
		{name: "unknown interface: run --sndbuf auto", args: []string{"run", "--level", "5", "--sndbuf", "auto", "--dev", "qjdp-nosuch", "--", "true"},
			code: 2, says: `invalid --dev: no such interface "qjdp-nosuch"`},
		{name: "unknown interface: run", args: []string{"run", "--level", "5", "--dev", "qjdp-nosuch", "--", "true"},
			code: 2, says: `invalid --dev: no such interface "qjdp-nosuch"`},
		{name: "unknown interface: assign", args: []string{"assign", "--level", "5", "--dev", "qjdp-nosuch", "--cgroup", "qjdp-nosuch.slice"},
			code: 2, says: `invalid --dev: no such interface "qjdp-nosuch"`},
		{name: "no privilege", prefix: []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"},
			args: upArgs(), code: 1, says: "needs root"},
		{name: "bpffs absent", env: []string{host.BPFFSEnv + "=" + notBPFFS}, args: upArgs(), code: 1, says: "no bpffs"},
		{name: "malformed YAML", args: []string{"up", "--dev", "eth0", "--config", file("bad.yaml", "hosts: [1, 2\n")},
			code: 2, says: "bad.yaml"},
		{name: "unknown key", args: []string{"up", "--dev", "eth0", "--config", file("typo.yaml", "hosts: 2\nrate: 1G\nfactor: {7: 1}\n")},
			code: 2, says: `"factor": no such key at line 3: did you mean factors?`},
		{name: "hosts out of range", args: []string{"up", "--dev", "eth0", "--config", file("hosts.yaml", "hosts: -3\nrate: 1G\n")},
			code: 2, says: `invalid hosts "-3"`},
		{name: "level out of range", args: []string{"up", "--dev", "eth0", "--config", file("level.yaml", "hosts: 2\nrate: 1G\nfactors: {9: 1}\n")},
			code: 2, says: `invalid factors "9"`},
		{name: "DSCP out of range", args: []string{"up", "--dev", "eth0", "--config", file("dscp.yaml", "hosts: 2\nrate: 1G\ndscp: {5: 64}\n")},
			code: 2, says: `invalid dscp[5] "64"`},
		{name: "bad mode in file", args: []string{"up", "--dev", "eth0", "--config", file("mode.yaml", "hosts: 2\nrate: 1G\nmode: fast\n")},
			code: 2, says: `invalid mode "fast"`},
		{name: "missing file", args: []string{"up", "--dev", "eth0", "--config", filepath.Join(dir, "none.yaml")}, code: 2, says: "none.yaml"},
		{name: "a directory for a file", args: []string{"up", "--dev", "eth0", "--config", dir}, code: 2, says: "is a directory"},
		{name: "bad mark", args: upArgs("--mark", "rainbow"), code: 2, says: `invalid --mark "rainbow"`},
		{name: "VLAN id out of range", args: upArgs("--vlan-id", "4095"), code: 2, says: `invalid --vlan-id "4095"`},
		{name: "VLAN id without PCP", args: upArgs("--vlan-id", "9"), code: 2, says: "--vlan-id 9 does nothing with mark dscp (the default)"},
		{name: "default level out of range", args: upArgs("--default-level", "8"), code: 2, says: `invalid --default-level "8"`},
		{name: "bad hook", args: upArgs("--attach", "xdp"), code: 2, says: `invalid --attach "xdp"`},
		{name: "autoclass in shape mode", args: upArgs("--mode", "shape", "--autoclass"), code: 2, says: "--autoclass"},
		{name: "model without hosts", args: []string{"up", "--dev", "eth0", "--rate", "1G"}, code: 2, says: "the model needs --hosts (or hosts: in --config)"},
		{name: "model without rate", args: []string{"up", "--dev", "eth0", "--hosts", "2"}, code: 2, says: "the model needs --rate (or rate: in --config)"},
		{name: "reload when not up", args: []string{"reload", "--dev", "eth0", "--config", file("ok.yaml", "hosts: 2\nrate: 1G\n")},
			code: 1, says: "not up"},
		{name: "status of a device not up", args: []string{"status", "--dev", "eth0"}, code: 1, says: "not up"},
		{name: "watch of a device not up", args: []string{"status", "--dev", "eth0", "--watch"}, code: 1, says: "not up"},
		{name: "an interval without --watch", args: []string{"status", "--interval", "2s"}, code: 2, says: "need --watch"},
		{name: "an interval too short", args: []string{"status", "--watch", "--interval", "1ms"}, code: 2, says: `invalid --interval "1ms": need 10ms to 1h`},
		// Quoted as typed, not as time.Duration prints it (2h0m0s).
		{name: "an interval too long", args: []string{"status", "--watch", "--interval", "2h"}, code: 2, says: `invalid --interval "2h": need 10ms to 1h`},
		{name: "a negative count", args: []string{"status", "--watch", "--count", "-1"}, code: 2, says: `invalid --count -1`},
	}
	before := snapshot(t, ns)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := qjumpInAfter(t, ns, tc.env, tc.prefix, tc.args...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != tc.code || !strings.Contains(errOut, tc.says) || len(lines) != 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line saying %q", code, errOut, tc.code, tc.says)
			}
			if after := snapshot(t, ns); after != before {
				t.Errorf("eth0 changed.\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestMissingCapabilityIsNamed: without one of the dataplane's capabilities (root in a container
// that dropped it) up and status name that one, and only that one, with how to get it; nobody
// lacks both. Before, every case named CAP_NET_ADMIN and CAP_SYS_ADMIN.
func TestMissingCapabilityIsNamed(t *testing.T) {
	ns := newHost(t)
	nobody := []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"}
	cases := []struct {
		name          string
		prefix        []string
		says, notSays string
	}{
		{"without CAP_NET_ADMIN", []string{"setpriv", "--inh-caps=-all", "--bounding-set=-net_admin"},
			"lacks CAP_NET_ADMIN: run it with sudo, or grant it CAP_NET_ADMIN", "CAP_SYS_ADMIN"},
		{"without CAP_SYS_ADMIN", []string{"setpriv", "--inh-caps=-all", "--bounding-set=-sys_admin"},
			"lacks CAP_SYS_ADMIN: run it with sudo, or grant it CAP_SYS_ADMIN", "CAP_NET_ADMIN"},
		{"nobody", nobody, "lacks CAP_NET_ADMIN and CAP_SYS_ADMIN: run it with sudo", ""},
	}
	before := snapshot(t, ns)
	for _, tc := range cases {
		for _, args := range [][]string{upArgs(), {"status"}} {
			_, errOut, code := qjumpInAfter(t, ns, nil, tc.prefix, args...)
			if code != exitRuntime || !strings.Contains(errOut, tc.says) || (tc.notSays != "" && strings.Contains(errOut, tc.notSays)) ||
				strings.Count(errOut, "\n") != 1 {
				t.Errorf("%s: qjump %s: exit %d, stderr %q; want 1 and one line saying %q, not %q",
					tc.name, args[0], code, errOut, tc.says, tc.notSays)
			}
		}
	}
	if after := snapshot(t, ns); after != before {
		t.Errorf("eth0 changed.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestReloadRefusesModeChange: police and shape differ in what they build on the device.
func TestReloadRefusesModeChange(t *testing.T) {
	ns := newHost(t)
	if _, errOut, code := qjumpIn(t, ns, nil, upArgs()...); code != 0 {
		t.Fatalf("qjump up: exit %d: %s", code, errOut)
	}
	cfg := filepath.Join(t.TempDir(), "shape.yaml")
	if err := os.WriteFile(cfg, []byte("hosts: 10\nrate: 24M\nmode: shape\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := qjumpIn(t, ns, nil, "reload", "--dev", "eth0", "--config", cfg)
	if code != 2 || !strings.Contains(errOut, "down, then up") {
		t.Fatalf("reload to shape: exit %d, %q", code, errOut)
	}
	out, errOut, code := qjumpIn(t, ns, nil, "status", "--json")
	if code != 0 {
		t.Fatalf("qjump status: exit %d: %s", code, errOut)
	}
	s := testutil.DecodeStatus(t, []byte(out))
	if len(s.Devices) != 1 || s.Devices[0].Generation != 1 {
		t.Fatalf("refused reload changed generation: %+v", s.Devices)
	}
}

// The state of an interface that has gone (deleted while QJump was up on it) stays reachable by
// its name: status shows it not attached and down removes it. Only then is the name no interface
// and no state, which down refuses as every verb does.
func TestGoneDeviceKeepsItsState(t *testing.T) {
	ns := newHost(t)
	if _, errOut, code := qjumpIn(t, ns, nil, upArgs()...); code != 0 {
		t.Fatalf("qjump up: exit %d: %s", code, errOut)
	}
	if _, errOut, code := testutil.Run(t, nil, "ip", "netns", "exec", ns, "ip", "link", "del", "eth0"); code != 0 {
		t.Fatalf("ip link del eth0: exit %d: %s", code, errOut)
	}
	out, errOut, code := qjumpIn(t, ns, nil, "status", "--dev", "eth0", "--json")
	if code != 0 {
		t.Fatalf("status of the gone eth0: exit %d: %s", code, errOut)
	}
	if s := testutil.DecodeStatus(t, []byte(out)); len(s.Devices) != 1 || s.Devices[0].Attached {
		t.Errorf("status of the gone eth0: %+v, want its state, not attached", s.Devices)
	}
	if _, errOut, code := qjumpIn(t, ns, nil, "down", "--dev", "eth0"); code != 0 || !strings.Contains(errOut, "down on eth0") {
		t.Errorf("down of the gone eth0: exit %d, %q; want its state removed", code, errOut)
	}
	if _, errOut, code := qjumpIn(t, ns, nil, "down", "--dev", "eth0"); code != 2 || !strings.Contains(errOut, `no such interface "eth0"`) {
		t.Errorf("down again: exit %d, %q; want 2, no such interface", code, errOut)
	}
}
