package dataplane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
)

// TestBadInput: every bad input gets one clear line, exit 2 (bad input) or 1 (privilege, kernel,
// state), and leaves eth0 exactly as it was.
func TestBadInput(t *testing.T) {
	h := newHosts(t)
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
		{name: "unknown interface", args: []string{"up", "--dev", "qjdp-nosuch", "--hosts", "2", "--rate", "1G"},
			code: 2, says: `no such interface "qjdp-nosuch"`},
		{name: "no privilege", prefix: []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"},
			args: upArgs(), code: 1, says: "needs root"},
		{name: "bpffs absent", env: []string{host.BPFFSEnv + "=" + notBPFFS}, args: upArgs(), code: 1, says: "no bpffs"},
		{name: "malformed YAML", args: []string{"up", "--dev", "eth0", "--config", file("bad.yaml", "hosts: [1, 2\n")},
			code: 2, says: "bad.yaml"},
		{name: "unknown key", args: []string{"up", "--dev", "eth0", "--config", file("typo.yaml", "hosts: 2\nrate: 1G\nfactor: {7: 1}\n")},
			code: 2, says: "field factor not found"},
		{name: "hosts out of range", args: []string{"up", "--dev", "eth0", "--config", file("hosts.yaml", "hosts: -3\nrate: 1G\n")},
			code: 2, says: `invalid hosts "-3"`},
		{name: "level out of range", args: []string{"up", "--dev", "eth0", "--config", file("level.yaml", "hosts: 2\nrate: 1G\nfactors: {9: 1}\n")},
			code: 2, says: `invalid factors "9"`},
		{name: "DSCP out of range", args: []string{"up", "--dev", "eth0", "--config", file("dscp.yaml", "hosts: 2\nrate: 1G\ndscp: {5: 64}\n")},
			code: 2, says: `invalid dscp[5] "64"`},
		{name: "bad mode in file", args: []string{"up", "--dev", "eth0", "--config", file("mode.yaml", "hosts: 2\nrate: 1G\nmode: fast\n")},
			code: 2, says: `invalid mode "fast"`},
		{name: "missing file", args: []string{"up", "--dev", "eth0", "--config", filepath.Join(dir, "none.yaml")}, code: 2, says: "none.yaml"},
		{name: "bad mark", args: upArgs("--mark", "rainbow"), code: 2, says: `invalid --mark "rainbow"`},
		{name: "VLAN id out of range", args: upArgs("--vlan-id", "4095"), code: 2, says: `invalid --vlan-id "4095"`},
		{name: "default level out of range", args: upArgs("--default-level", "8"), code: 2, says: `invalid --default-level "8"`},
		{name: "bad hook", args: upArgs("--attach", "xdp"), code: 2, says: `invalid --attach "xdp"`},
		{name: "autoclass in shape mode", args: upArgs("--mode", "shape", "--autoclass"), code: 2, says: "--autoclass"},
		{name: "model without hosts", args: []string{"up", "--dev", "eth0", "--rate", "1G"}, code: 2, says: "--hosts"},
		{name: "reload when not up", args: []string{"reload", "--dev", "eth0", "--config", file("ok.yaml", "hosts: 2\nrate: 1G\n")},
			code: 1, says: "not up"},
		{name: "status of a device not up", args: []string{"status", "--dev", "eth0"}, code: 1, says: "not up"},
	}
	before := h.snapshot(t, h.a)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"netns", "exec", h.a}, tc.prefix...)
			args = append(append(args, qjumpBinary(t)), tc.args...)
			_, errOut, code := runCmd(t, tc.env, "ip", args...)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != tc.code || !strings.Contains(errOut, tc.says) || len(lines) != 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line saying %q", code, errOut, tc.code, tc.says)
			}
			if after := h.snapshot(t, h.a); after != before {
				t.Errorf("eth0 changed.\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestReloadRefusesModeChange: police and shape differ in what they build on the device.
func TestReloadRefusesModeChange(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	cfg := filepath.Join(t.TempDir(), "shape.yaml")
	if err := os.WriteFile(cfg, []byte("hosts: 10\nrate: 24M\nmode: shape\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := h.qjump(t, h.a, "reload", "--dev", "eth0", "--config", cfg)
	if code != 2 || !strings.Contains(errOut, "down, then up") {
		t.Fatalf("reload to shape: exit %d, %q", code, errOut)
	}
	if s := h.status(t, h.a); s.Devices[0].Generation != 1 {
		t.Fatalf("refused reload changed generation: %+v", s.Devices[0])
	}
}
