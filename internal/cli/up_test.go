package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// upOptionsFrom parses args as `qjump up` would and returns the configuration it would attach.
func upOptionsFrom(t *testing.T, args []string) (config.Dataplane, error) {
	t.Helper()
	return parseOptions(t, newUpCommand, args...).dataplane()
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

func TestUpNeedsHostsAndRate(t *testing.T) {
	_, err := upOptionsFrom(t, []string{"--dev", "eth0", "--rate", "1G"})
	var usage *UsageError
	if !errors.As(err, &usage) {
		t.Fatalf("error %v, want a usage error", err)
	}
}
