package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpTakesPacketFromTheDevice: on a 9000-MTU eth0, `qjump up` without --packet runs with P one
// full frame of the device on the wire (9038 B), and warns when an explicit P is smaller.
func TestUpTakesPacketFromTheDevice(t *testing.T) {
	ns := newHost(t)
	if out, err := exec.Command("ip", "-n", ns, "link", "set", "eth0", "mtu", "9000").CombinedOutput(); err != nil {
		t.Fatalf("set MTU: %v: %s", err, out)
	}
	model := []string{"up", "--dev", "eth0", "--hosts", "10", "--rate", "24M", "--factors", "7=1,0=unlimited"}

	_, errOut, code := qjumpIn(t, ns, nil, append(model, "--packet", "1538B")...)
	want := "qjump: warning: level 7: budget 1538B per epoch (f·P = 1·1538B) is smaller than the device's largest frame, 9038B on the wire"
	if code != 0 || !strings.Contains(errOut, want) {
		t.Fatalf("up --packet 1538B on MTU 9000: exit %d, stderr %q; want a warning %q", code, errOut, want)
	}

	_, errOut, code = qjumpIn(t, ns, nil, append(model, "--replace")...)
	if code != 0 || strings.Contains(errOut, "smaller than the device's largest frame") {
		t.Fatalf("up on MTU 9000: exit %d, stderr %q; want no warning about the frame", code, errOut)
	}
	wantDevicePacket(t, ns, 1)

	// reload resolves a file without packet: the same way.
	cfg := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(cfg, []byte("hosts: 10\nrate: 24M\nfactors: {7: 1, 0: unlimited}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := qjumpIn(t, ns, nil, "reload", "--dev", "eth0", "--config", cfg); code != 0 {
		t.Fatalf("reload: exit %d: %s", code, errOut)
	}
	wantDevicePacket(t, ns, 2)

	// A reload from the running configuration keeps P one full frame of the device: PCP marking
	// makes that frame 4 bytes longer. A P given outright stays as given.
	for _, step := range []struct {
		flags  []string
		packet string
	}{
		{[]string{"--mark", "pcp"}, "9042B"},
		{[]string{"--packet", "4000B"}, "4000B"},
		{[]string{"--mark", "dscp"}, "4000B"},
		{[]string{"--packet", "auto"}, "9038B"},
	} {
		if _, errOut, code := qjumpIn(t, ns, nil, append([]string{"reload", "--dev", "eth0"}, step.flags...)...); code != 0 {
			t.Fatalf("reload %v: exit %d: %s", step.flags, code, errOut)
		}
		if got, _ := runningPacket(t, ns); got != step.packet {
			t.Errorf("after reload %v: P %s, want %s", step.flags, got, step.packet)
		}
	}

	// The MTU changed under a running auto P: status says so and how to resolve it again.
	if out, err := exec.Command("ip", "-n", ns, "link", "set", "eth0", "mtu", "1500").CombinedOutput(); err != nil {
		t.Fatalf("set MTU: %v: %s", err, out)
	}
	if _, warnings := runningPacket(t, ns); len(warnings) != 1 || !strings.Contains(warnings[0], "--packet auto") {
		t.Errorf("status after the MTU went 9000 -> 1500: warnings %q, want one naming --packet auto", warnings)
	}
	if _, errOut, code := qjumpIn(t, ns, nil, "reload", "--dev", "eth0", "--packet", "auto"); code != 0 {
		t.Fatalf("reload --packet auto: exit %d: %s", code, errOut)
	}
	if p, warnings := runningPacket(t, ns); p != "1538B" || len(warnings) != 0 {
		t.Errorf("after reload --packet auto: P %s, warnings %q; want 1538B and none", p, warnings)
	}
}

// wantDevicePacket checks that eth0 in ns runs generation gen with P = 9038 B.
func wantDevicePacket(t *testing.T, ns string, gen uint64) {
	t.Helper()
	out, errOut, code := qjumpIn(t, ns, nil, "status", "--json", "--dev", "eth0")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	var s statusJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil || len(s.Devices) != 1 {
		t.Fatalf("decode status: %v: %s", err, out)
	}
	// E = 2·10·9038·8 / 24 Mb/s = 60.2533… ms, rounded up to the nanosecond.
	d := s.Devices[0]
	if d.Generation != gen || d.EpochNs != 60253334 {
		t.Errorf("generation %d, epoch_ns %d; want %d, 60253334 (P = 9038B)", d.Generation, d.EpochNs, gen)
	}
	seen := false
	for _, l := range d.Levels {
		if l.Level == 7 {
			seen = true
			if l.BudgetBytes == nil || *l.BudgetBytes != 9038 {
				t.Errorf("level 7 budget %v, want 9038", l.BudgetBytes)
			}
		}
	}
	if !seen {
		t.Errorf("status --json has no level 7: %s", out)
	}
}

// runningPacket is the P that eth0 in ns runs and what status warns about it, as status --json
// gives them.
func runningPacket(t *testing.T, ns string) (string, []string) {
	t.Helper()
	out, errOut, code := qjumpIn(t, ns, nil, "status", "--json", "--dev", "eth0")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	var s statusJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil || len(s.Devices) != 1 || s.Devices[0].Config.Packet == nil {
		t.Fatalf("decode status: %v: %s", err, out)
	}
	d := s.Devices[0]
	// config gives P as a file would again: auto while it follows the device, packet_bytes the size.
	if given := *d.Config.Packet; (given == "auto") != d.PacketAuto || !d.PacketAuto && given != fmt.Sprintf("%dB", d.PacketBytes) {
		t.Errorf("status --json: config packet %q, packet_auto %v, packet_bytes %d", given, d.PacketAuto, d.PacketBytes)
	}
	return fmt.Sprintf("%dB", d.PacketBytes), d.Warnings
}
