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
	opts := parseOptions(t, newReloadCommand, append([]string{"--dev", "eth0"}, args...)...)
	return opts.dataplane(func(string) (int, error) { return 1500, nil }, func(dev string) (config.Dataplane, error) {
		if running == nil {
			t.Errorf("reload %v asked for the running configuration of %s", args, dev)
			return config.Dataplane{}, errors.New("not asked")
		}
		return *running, nil
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
	if _, err = reloadFrom(t, nil); !errors.As(err, &usage) || !strings.Contains(err.Error(), "nothing to reload") {
		t.Errorf("reload with neither --config nor flags: %v, want refused", err)
	}
	if _, err = reloadFrom(t, &running, "--factors", "7=1,5=3", "--target-rate", "5=1G"); !errors.As(err, &usage) {
		t.Errorf("level 5 in --factors and --target-rate: %v, want refused", err)
	}
}
