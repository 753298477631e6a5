package cli

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

func TestReloadOptions(t *testing.T) {
	got := parseOptions(t, newReloadCommand, "--dev", "eth1", "--config", "/etc/q.yaml")
	if got.dev != "eth1" || got.configFile != "/etc/q.yaml" {
		t.Errorf("parsed %+v", got)
	}
}

// reloadFrom parses args as `qjump reload` would and returns the configuration it would load on a
// device of MTU 1500 that runs running (nil: the test fails if reload asks what it runs).
func reloadFrom(t *testing.T, running *config.Dataplane, args ...string) (config.Dataplane, error) {
	t.Helper()
	return reloadOver(t, running, "", args...)
}

// reloadOver is reloadFrom on a device whose egress tree is gone as treeGone says ("" while it is
// there).
func reloadOver(t *testing.T, running *config.Dataplane, treeGone string, args ...string) (config.Dataplane, error) {
	t.Helper()
	return reloadOverBuild(t, running, treeGone, dataplane.ProgramBuild(), args...)
}

// reloadOverBuild is reloadOver on a device that runs the program of build program.
func reloadOverBuild(t *testing.T, running *config.Dataplane, treeGone, program string, args ...string) (config.Dataplane, error) {
	t.Helper()
	opts := parseOptions(t, newReloadCommand, append([]string{"--dev", "eth0"}, args...)...)
	return opts.dataplane(func(string) (int, error) { return 1500, nil }, func(dev string) (dataplane.Status, error) {
		if running == nil {
			t.Errorf("reload %v asked for the running configuration of %s", args, dev)
			return dataplane.Status{}, errors.New("not asked")
		}
		return dataplane.Status{Device: dev, Config: *running, TreeGone: treeGone, Program: program}, nil
	})
}

// Without --config, reload applies its flags over the running configuration; with it, over the file
// (the running one is not read); with neither, it refuses.
func TestReloadFlagsOverTheRunningConfig(t *testing.T) {
	running, err := upOptionsFrom(t, []string{"--dev", "eth0", "--hosts", "12", "--rate", "10G", "--factors", "7=1,5=10,3=4,0=unlimited", "--default-level", "3"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := reloadFrom(t, &running, "--target-rate", "5=2G")
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Model.LevelRate(d.Model.Factors[5]); r < 1.999e9 || r > 2.001e9 {
		t.Errorf("--target-rate 5=2G solved to %v", r)
	}
	if d.Model.Hosts != 12 || d.Model.Factors[3] != model.Limited(4) || d.Model.Factors[7] != model.Limited(1) || d.DefaultLevel != 3 {
		t.Errorf("--target-rate 5=2G changed more than level 5: %+v", d)
	}
	if d, err = reloadFrom(t, &running, "--factors", "7=1,0=unlimited"); err != nil || len(d.Model.Factors) != 2 {
		t.Errorf("--factors replaces every factor: %v, %v", d.Model.Factors, err)
	}
	if d, err = reloadFrom(t, &running, "--mark", "pcp"); err != nil || d.Model.Packet != 1542 {
		t.Errorf("--mark pcp over a running P of one full frame: P %v, %v; want 1542B", d.Model.Packet, err)
	}

	file := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(file, []byte("hosts: 5\nrate: 1G\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if d, err = reloadFrom(t, nil, "--config", file, "--hosts", "4"); err != nil || d.Model.Hosts != 4 || d.Model.Rate != 1e9 || d.DefaultLevel != 0 {
		t.Errorf("--config with --hosts 4: %+v, %v; want the file's with 4 hosts", d, err)
	}

	var usage *UsageError
	if _, err = reloadFrom(t, &running); !errors.As(err, &usage) || !strings.Contains(err.Error(), "nothing to reload") {
		t.Errorf("reload with neither --config nor flags: %v, want refused", err)
	}
	// ... unless the egress tree is gone: then the reload builds it again with what runs.
	if d, err = reloadOver(t, &running, "no root qdisc"); err != nil || !reflect.DeepEqual(d.Model, running.Model) || d.DefaultLevel != running.DefaultLevel {
		t.Errorf("reload with neither over a gone tree: %+v, %v; want the running configuration", d, err)
	}
	// ... or the program another qjump build's (an upgrade since up): then it loads this one's.
	for _, other := range []string{"0123456789ab", ""} {
		if d, err = reloadOverBuild(t, &running, "", other); err != nil || !reflect.DeepEqual(d.Model, running.Model) {
			t.Errorf("reload with neither over program %q: %+v, %v; want the running configuration", other, d, err)
		}
	}
	if _, err = reloadFrom(t, &running, "--factors", "7=1,5=3", "--target-rate", "5=1G"); !errors.As(err, &usage) {
		t.Errorf("level 5 in --factors and --target-rate: %v, want refused", err)
	}
}

// A target rate given at up is a rate, not the factor it solved to in up's epoch: a reload that
// changes the epoch (here n) solves it again, so level 5 stays at 5G. reload kept the factor, and
// the level went to 4.6G without a word.
func TestReloadKeepsTargetRates(t *testing.T) {
	running, err := upOptionsFrom(t, []string{"--dev", "eth0", "--hosts", "12", "--rate", "10G", "--target-rate", "5=5G"})
	if err != nil {
		t.Fatal(err)
	}
	rateOf := func(d config.Dataplane, l model.Level) float64 { return float64(d.Model.LevelRate(d.Model.Factors[l])) }
	near := func(r, want float64) bool { return r > want*0.9999 && r < want*1.0001 }
	cases := []struct {
		args []string
		want float64 // level 5's rate
	}{
		{[]string{"--hosts", "13"}, 5e9},
		{[]string{"--rate", "25G", "--epsilon", "4us"}, 5e9},
		{[]string{"--hosts", "13", "--target-rate", "5=2G"}, 2e9},
		{[]string{"--hosts", "13", "--target-rate", "3=1G"}, 5e9},
	}
	for _, tc := range cases {
		d, err := reloadFrom(t, &running, tc.args...)
		if err != nil || !near(rateOf(d, 5), tc.want) {
			t.Errorf("reload %v: level 5 at %v (factor %v), %v; want %v", tc.args, rateOf(d, 5), d.Model.Factors[5], err, tc.want)
		}
	}
	// --factors replaces every factor, one solved from a target rate too.
	d, err := reloadFrom(t, &running, "--hosts", "13", "--factors", "7=1,5=12,0=unlimited")
	if err != nil || d.Model.Factors[5] != model.Limited(12) || len(d.SolvedRates) != 0 {
		t.Errorf("--factors 5=12 over a kept target rate: factors %v, targets %v, %v; want factor 12 and no target", d.Model.Factors, d.SolvedRates, err)
	}
	// A kept target rate the new model cannot give is named as kept, not as a --target-rate the
	// user never typed.
	_, err = reloadFrom(t, &running, "--rate", "1G")
	var usage *UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "level 5 keeps its target rate 5Gb/s") || strings.Contains(err.Error(), "invalid --target-rate") {
		t.Errorf("reload --rate 1G under a kept 5G: %v; want a usage error naming level 5's kept target rate", err)
	}
}

// Through the binary, as a user runs it: the target rate outlives up in the pinned record, and a
// reload of --hosts alone solves it again and says so.
func TestReloadKeepsTargetRatesOnTheDevice(t *testing.T) {
	ns := newHost(t)
	if _, errOut, code := qjumpIn(t, ns, nil, "up", "--dev", "eth0", "--hosts", "12", "--rate", "10G", "--target-rate", "5=5G"); code != 0 {
		t.Fatalf("qjump up: exit %d: %s", code, errOut)
	}
	_, errOut, code := qjumpIn(t, ns, nil, "reload", "--dev", "eth0", "--hosts", "13")
	if code != 0 {
		t.Fatalf("reload --hosts 13: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "level 5 keeps its target rate 5Gb/s: factor 13.0007, was 12.0007") {
		t.Errorf("reload --hosts 13 said %q; want that level 5 keeps 5Gb/s with factor 13.0007", errOut)
	}
	out, errOut, code := qjumpIn(t, ns, nil, "status", "--json")
	if code != 0 {
		t.Fatalf("qjump status: exit %d: %s", code, errOut)
	}
	s := testutil.DecodeStatus(t, []byte(out))
	if len(s.Devices) != 1 || s.Devices[0].Generation != 2 {
		t.Fatalf("status after the reload: %+v", s.Devices)
	}
	if r := s.Devices[0].Level(t, 5).RateBps; r == nil || *r < 4.999e9 || *r > 5.001e9 {
		t.Errorf("level 5 after reload --hosts 13: %v b/s, want 5G", r)
	}
}

// reload refuses --vlan-id on an interface that runs a mark without PCP, naming where the mark
// came from, and takes it with a --mark that pushes the tag.
func TestReloadVLANIDNeedsPCP(t *testing.T) {
	running, err := upOptionsFrom(t, []string{"--dev", "eth0", "--hosts", "12", "--rate", "10G", "--mark", "dscp"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = reloadFrom(t, &running, "--vlan-id", "9")
	var usage *UsageError
	if want := "--vlan-id 9 does nothing with mark dscp (what the interface runs)"; !errors.As(err, &usage) || !strings.Contains(err.Error(), want) {
		t.Errorf("--vlan-id 9 over a running mark dscp: %v, want a usage error saying %q", err, want)
	}
	if d, err := reloadFrom(t, &running, "--vlan-id", "9", "--mark", "pcp"); err != nil || d.VLANID != 9 {
		t.Errorf("--vlan-id 9 --mark pcp: VLAN id %d, %v; want 9", d.VLANID, err)
	}
}

// A reload that would change the mode names where the mode came from: a --config file without a
// mode: key gives the default, police, and the refusal named a --mode the user never gave
// (review, helper-80). A --mode given is named as the flag.
func TestReloadNamesWhereTheModeCameFrom(t *testing.T) {
	ns := newHost(t)
	file := filepath.Join(t.TempDir(), "plain.yaml")
	if err := os.WriteFile(file, []byte("hosts: 12\nrate: 10G\nfactors:\n  7: 1\n  0: unlimited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := qjumpIn(t, ns, nil, "up", "--dev", "eth0", "--config", file, "--mode", "shape"); code != 0 {
		t.Fatalf("qjump up: exit %d: %s", code, errOut)
	}
	_, errOut, code := qjumpIn(t, ns, nil, "reload", "--dev", "eth0", "--config", file)
	want := file + `: invalid mode "police": eth0 runs shape mode; changing the mode needs qjump down, then up (police is the default: ` +
		file + " has no mode:; add mode: shape, or give --mode shape)"
	if code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("reload --config of a file without mode: exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	_, errOut, code = qjumpIn(t, ns, nil, "reload", "--dev", "eth0", "--config", file, "--mode", "police")
	if code != exitUsage || !strings.Contains(errOut, `invalid --mode "police": eth0 runs shape mode`) {
		t.Errorf("reload --mode police: exit %d, stderr %q; want 2 naming --mode", code, errOut)
	}
}

// reload --config merges the file and the flags before it validates, as up and calc do.
func TestReloadFlagsFixTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(file, []byte("hosts: 12\nrate: 10G\nfactors: {7: 1, 5: 0.01, 0: unlimited}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := reloadFrom(t, nil, "--config", file, "--target-rate", "5=5G")
	if err != nil || d.Model.LevelRate(d.Model.Factors[5]) < 5e9 {
		t.Errorf("reload --config with --target-rate 5=5G over factors[5] 0.01: %v, factors %v", err, d.Model.Factors)
	}
	if _, err := reloadFrom(t, nil, "--config", file); err == nil || !strings.Contains(err.Error(), file+`: invalid factors[5] "0.01"`) {
		t.Errorf("reload --config of factors[5] 0.01: %v; want it refused naming the file", err)
	}
}
