package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// upOptionsFrom parses args as `qjump up` would and returns the configuration it would attach to
// a device of MTU 1500.
func upOptionsFrom(t *testing.T, args []string) (config.Dataplane, error) {
	t.Helper()
	return upOnMTU(t, 1500, args)
}

func upOnMTU(t *testing.T, mtu int, args []string) (config.Dataplane, error) {
	t.Helper()
	return parseOptions(t, newUpCommand, args...).dataplane(func(dev string) (int, error) {
		if dev != "eth0" {
			t.Errorf("MTU asked of %q, want the --dev eth0", dev)
		}
		return mtu, nil
	})
}

// P is one full frame of the device unless the flags or the file say otherwise, and the device's
// largest frame is known to the warnings either way.
func TestUpPacketFromDevice(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(file, []byte("hosts: 12\nrate: 10G\npacket: 4000B\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"--dev", "eth0", "--hosts", "12", "--rate", "10G"}
	tests := []struct {
		name         string
		mtu          int
		args         []string
		wantPacket   model.Bytes
		wantMaxFrame model.Bytes
		wantWarnings int
	}{
		{"default on a 1500-MTU device", 1500, nil, 1538, 1538, 0},
		{"default on a jumbo device", 9000, nil, 9038, 9038, 0},
		{"PCP marking pushes a tag", 1500, []string{"--mark", "pcp"}, 1542, 1542, 0},
		{"auto said outright", 9000, []string{"--packet", "auto"}, 9038, 9038, 0},
		{"an explicit P below the device's frame warns", 9000, []string{"--packet", "1538B"}, 1538, 9038, 1},
		{"the file's P", 1500, []string{"--config", file}, 4000, 1538, 0},
		{"--packet auto overrides the file's P", 1500, []string{"--config", file, "--packet", "auto"}, 1538, 1538, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := upOnMTU(t, tt.mtu, append(append([]string{}, base...), tt.args...))
			if err != nil {
				t.Fatal(err)
			}
			if d.Model.Packet != tt.wantPacket || d.Model.MaxFrame != tt.wantMaxFrame {
				t.Errorf("P = %v, largest frame %v; want %v, %v", d.Model.Packet, d.Model.MaxFrame, tt.wantPacket, tt.wantMaxFrame)
			}
			if w := d.Model.Warnings(); len(w) != tt.wantWarnings {
				t.Errorf("warnings %q, want %d", w, tt.wantWarnings)
			}
		})
	}
}

// Target rates are solved in units of the device's P: 5G is the same rate on any MTU.
func TestUpTargetRateUsesTheDevicesPacket(t *testing.T) {
	for _, mtu := range []int{1500, 9000} {
		d, err := upOnMTU(t, mtu, []string{"--dev", "eth0", "--hosts", "12", "--rate", "10G", "--target-rate", "5=5G"})
		if err != nil {
			t.Fatal(err)
		}
		if r := d.Model.LevelRate(d.Model.Factors[5]); r < 4.999e9 || r > 5.001e9 {
			t.Errorf("MTU %d: 5G solved to %v", mtu, r)
		}
	}
}

func TestUpFlagsOverrideFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.yaml")
	body := "hosts: 12\nrate: 10G\nfactors: {7: 1, 5: 3, 0: unlimited}\nmode: shape\nmark: pcp\nvlan_id: 9\ndefault_level: 2\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := upOptionsFrom(t, []string{"--dev", "eth0", "--config", file, "--hosts", "4", "--mark", "dscp", "--target-rate", "3=1G"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Model.Hosts != 4 || d.Model.Rate != 10e9 || d.Mark != config.MarkDSCP || d.Mode != config.Shape ||
		d.VLANID != 9 || d.DefaultLevel != 2 || d.Model.Factors[5] != model.Limited(3) {
		t.Errorf("merged config %+v", d)
	}
	if r := d.Model.LevelRate(d.Model.Factors[3]); r < 0.999e9 || r > 1.001e9 {
		t.Errorf("--target-rate 3=1G solved to %v", r)
	}
}

// The rules docs/configuration.md ("Factors and target rates") states: in a file a target rate
// replaces the level's factor; on the command line a level in both flags is refused; a file's
// target rate still applies over --factors; --target-rate replaces a file's factor.
func TestUpFactorsAndTargetRates(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.yaml")
	body := "hosts: 12\nrate: 10G\nfactors: {7: 1, 5: 3, 3: 2, 0: unlimited}\ntarget_rate: {5: 5G}\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	is5G := func(d config.Dataplane, l model.Level) bool {
		r := d.Model.LevelRate(d.Model.Factors[l])
		return r > 4.999e9 && r < 5.001e9
	}
	d, err := upOptionsFrom(t, []string{"--dev", "eth0", "--config", file})
	if err != nil || !is5G(d, 5) {
		t.Errorf("file with 5 in factors and target_rate: %v, factors %v; want level 5 at 5G", err, d.Model.Factors)
	}
	d, err = upOptionsFrom(t, []string{"--dev", "eth0", "--config", file, "--factors", "7=1,5=2,0=unlimited"})
	if err != nil || !is5G(d, 5) {
		t.Errorf("--factors 5=2 over a file's target_rate 5: %v, factors %v; want the file's 5G", err, d.Model.Factors)
	}
	d, err = upOptionsFrom(t, []string{"--dev", "eth0", "--config", file, "--target-rate", "3=5G"})
	if err != nil || !is5G(d, 3) {
		t.Errorf("--target-rate 3=5G over the file's factor 3: %v, factors %v; want 5G", err, d.Model.Factors)
	}
	_, err = upOptionsFrom(t, []string{"--dev", "eth0", "--config", file, "--factors", "7=1,3=2", "--target-rate", "3=5G"})
	var usage *UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "both --factors and --target-rate") {
		t.Errorf("level 3 in --factors and --target-rate: %v, want it refused", err)
	}
}

func TestUpNeedsHostsAndRate(t *testing.T) {
	_, err := upOptionsFrom(t, []string{"--dev", "eth0", "--rate", "1G"})
	var usage *UsageError
	if !errors.As(err, &usage) {
		t.Fatalf("error %v, want a usage error", err)
	}
}

// A value the configuration refuses is named where it came from: the file's key when the file
// gave it, the flag when the user typed it. up named a file's too-fast target rate as
// --target-rate, a flag the user never gave, and without the file.
func TestUpNamesWhereARefusedValueCameFrom(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(file, []byte("hosts: 12\nrate: 10G\ntarget_rate: {5: 50G}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--config", file}, file + `: invalid target_rate[5] "50G"`},
		{[]string{"--config", file, "--target-rate", "4=1G"}, file + `: invalid target_rate[5] "50G"`},
		{[]string{"--config", file, "--target-rate", "5=20G"}, `invalid --target-rate "5=20G"`},
		{[]string{"--config", file, "--target-rate", "5=1G", "--vlan-id", "5000"}, `invalid --vlan-id "5000"`},
	}
	for _, tc := range cases {
		_, err := upOptionsFrom(t, append([]string{"--dev", "eth0"}, tc.args...))
		var usage *UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("up %v: %v, want a usage error with %s", tc.args, err, tc.want)
		}
	}
}

// --vlan-id goes in the tag only PCP marking pushes: with mark dscp or none (dscp is the default)
// it would do nothing, so it is refused naming both flags and where the mark came from. A file's
// vlan_id under such a mark is kept, with a warning.
func TestUpVLANIDNeedsPCP(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("hosts: 12\nrate: 10G\n"+body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dscpFile, pcpFile := file("dscp.yaml", "mark: dscp\nvlan_id: 9\n"), file("pcp.yaml", "mark: pcp\nvlan_id: 9\n")
	cases := []struct {
		args    []string
		refused string // the message's part that names the mark; "" when accepted
		warns   bool
	}{
		{[]string{"--vlan-id", "9"}, "--vlan-id 9 does nothing with mark dscp (the default)", false},
		{[]string{"--vlan-id", "0", "--mark", "dscp"}, "--vlan-id 0 does nothing with --mark dscp", false},
		{[]string{"--vlan-id", "9", "--mark", "none"}, "--vlan-id 9 does nothing with --mark none", false},
		{[]string{"--config", dscpFile, "--vlan-id", "9"}, "with mark dscp (--config " + dscpFile + "'s, or the default)", false},
		{[]string{"--config", pcpFile, "--vlan-id", "9", "--mark", "dscp"}, "with --mark dscp", false},
		{[]string{"--vlan-id", "9", "--mark", "pcp"}, "", false},
		{[]string{"--vlan-id", "9", "--mark", "both"}, "", false},
		{[]string{"--config", pcpFile, "--vlan-id", "7"}, "", false},
		{[]string{"--config", dscpFile}, "", true},
		{[]string{"--config", pcpFile, "--mark", "none"}, "", true},
		{[]string{"--config", pcpFile}, "", false},
	}
	for _, tc := range cases {
		args := append([]string{"--dev", "eth0", "--hosts", "12", "--rate", "10G"}, tc.args...)
		opts := parseOptions(t, newUpCommand, args...)
		d, err := opts.dataplane(func(string) (int, error) { return 1500, nil })
		var usage *UsageError
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("up %v: %v, want it accepted", tc.args, err)
		case tc.refused != "" && (!errors.As(err, &usage) || !strings.Contains(err.Error(), tc.refused) ||
			!strings.Contains(err.Error(), "give --mark pcp or --mark both with it, or leave --vlan-id out")):
			t.Errorf("up %v: %v, want a usage error saying %q and what would make it valid", tc.args, err, tc.refused)
		}
		if w := opts.vlanWarnings(d); err == nil && (len(w) == 1) != tc.warns {
			t.Errorf("up %v: warnings %q, want a warning: %v", tc.args, w, tc.warns)
		}
	}
}

// up merges its --config file and flags before it validates, as calc and reload do (one path):
// a flag fixes what the file alone gets wrong (review, helper-84).
func TestUpFlagsFixTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(file, []byte("hosts: 0\nrate: 10G\nmode: shape\nautoclass: true\nfactors: {7: 1, 5: 0.01}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := upOptionsFrom(t, []string{"--dev", "eth0", "--config", file, "--hosts", "12", "--mode", "police", "--target-rate", "5=5G"})
	if err != nil || d.Model.Hosts != 12 || d.Mode != config.Police || !d.Autoclass || d.Model.LevelRate(d.Model.Factors[5]) < 5e9 {
		t.Errorf("flags over the file: %v, %+v", err, d)
	}
	if _, err := upOptionsFrom(t, []string{"--dev", "eth0", "--config", file, "--hosts", "12", "--target-rate", "5=5G"}); err == nil ||
		!strings.Contains(err.Error(), file+`: invalid autoclass "true"`) {
		t.Errorf("autoclass under the file's mode shape: %v; want it refused naming the file", err)
	}
}
