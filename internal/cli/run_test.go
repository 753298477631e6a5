package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/dataplane"
)

// Bad input to run, assign and unassign is refused before anything starts: one line naming the
// flag, exit status 2.
func TestRunAndAssignUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"run", "--level", "8", "--", "true"}, "--level"},
		{[]string{"run", "--level", "x", "--", "true"}, "--level"},
		{[]string{"run", "--", "true"}, "level"},
		{[]string{"run", "--level", "3"}, "run needs a command to run after the flags, e.g. qjump run --level 5 -- memcached"},
		{[]string{"run", "--level", "3", "--"}, "run needs a command to run"},
		{[]string{"run", "--level", "3", "--mode", "magic", "--", "true"}, "--mode"},
		{[]string{"run", "--level", "3", "--sndbuf", "lots", "--", "true"}, "--sndbuf"},
		{[]string{"run", "--level", "3", "--sndbuf", "0", "--", "true"}, "--sndbuf"},
		{[]string{"run", "--level", "3", "--sndbuf", "auto", "--config", "/nonexistent/qjap.yaml", "--", "true"}, "qjap.yaml"},
		{[]string{"run", "--level", "3", "--max-level", "5", "--", "true"}, "--mode cgroup"},
		{[]string{"run", "--mode", "cgroup", "--level", "5", "--max-level", "3", "--", "true"}, "--max-level"},
		{[]string{"assign", "--cgroup", "/tmp", "--level", "5", "--max-level", "8"}, "--max-level"},
		{[]string{"assign", "--level", "3"}, "cgroup"},
		{[]string{"assign", "--cgroup", "/tmp", "--level", "9"}, "--level"},
		{[]string{"unassign"}, "cgroup"},
		// --dev and --config only say where --sndbuf auto reads the budget; without it they did
		// nothing, silently (lo: an interface every network namespace has). A command that does
		// not exist: were it run, preload mode would exec it in place of this test.
		{[]string{"run", "--level", "3", "--dev", "lo", "--", "/nonexistent/qjump-cmd"}, "--dev lo is for --sndbuf auto"},
		{[]string{"run", "--level", "3", "--sndbuf", "64k", "--dev", "lo", "--", "/nonexistent/qjump-cmd"}, "add --sndbuf auto, or leave --dev out"},
		{[]string{"run", "--level", "3", "--config", "/etc/qjump.yaml", "--", "/nonexistent/qjump-cmd"}, "--config /etc/qjump.yaml is for --sndbuf auto"},
		{[]string{"assign", "--cgroup", "/tmp", "--level", "5", "--dev", "lo"}, "--dev lo is for --sndbuf auto"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(c.args, &stdout, &stderr)
		msg := stderr.String()
		if code != exitUsage || !strings.Contains(msg, c.says) || strings.Count(msg, "\n") != 1 {
			t.Errorf("qjump %s: exit %d, stderr %q; want 2 and one line about %s", strings.Join(c.args, " "), code, msg, c.says)
		}
	}
}

func TestRunOptions(t *testing.T) {
	got := parseOptions(t, newRunCommand, "--level", "4", "--sndbuf", "auto", "--dev", "eth1", "--mode", "cgroup",
		"--", "iperf3", "-c", "10.0.0.2")
	if got.level != 4 || got.sndbuf != "auto" || got.dev != "eth1" || got.mode != "cgroup" {
		t.Errorf("parsed %+v", got)
	}
	// Flags after CMD are CMD's, not run's.
	got = parseOptions(t, newRunCommand, "--level", "1", "ping", "--level", "9")
	if got.level != 1 || strings.Join(got.command, " ") != "ping --level 9" || got.mode != "preload" {
		t.Errorf("parsed %+v, want level 1 and the command ping --level 9 in preload mode", got)
	}
}

// --sndbuf auto sizes from a limited level's budget, and for a level carried by an unlimited
// one it names the carrier instead of calling the level itself unlimited.
func TestSndBufAutoFromConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qjump.yaml")
	yaml := "hosts: 12\nrate: 10G\nfactors:\n  7: 1\n  0: unlimited\ntarget_rate:\n  5: 5G\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	src := budgetSource{config: path}
	// Level 5 at 5G: budget 18457B per epoch (docs: README's calc example), two of them.
	if n, err := sndBufFlag("auto", src, 5); err != nil || n != 2*18457 {
		t.Errorf("--sndbuf auto at level 5 = %d, %v; want %d", n, err, 2*18457)
	}
	_, err := sndBufFlag("auto", src, 4)
	if err == nil || !strings.Contains(err.Error(), "carried by level 0, which is unlimited") {
		t.Errorf("--sndbuf auto at level 4: %v; want it to say level 0 carries it and is unlimited", err)
	}
	_, err = sndBufFlag("auto", src, 0)
	if err == nil || !strings.Contains(err.Error(), "level 0: the level is unlimited") {
		t.Errorf("--sndbuf auto at level 0: %v; want it to say the level is unlimited", err)
	}
}

// --sndbuf auto with a --dev QJump is not up on, or with none named and QJump up on several, is
// bad input (exit 2) that says what to do, as with QJump up nowhere. Before, a --dev not up
// exited 1 with "read active config of lo: qjump is not up on lo".
func TestSndBufAutoWithoutItsDataplane(t *testing.T) {
	up := func(dev string) dataplane.DeviceConfig { return dataplane.DeviceConfig{Device: dev} }
	for _, c := range []struct {
		src  budgetSource
		says string
	}{
		{budgetSource{dev: "lo"}, "qjump is not up on lo; bring it up there (qjump up --dev lo)"},
		{budgetSource{dev: "lo", active: activeConfigs{devices: []dataplane.DeviceConfig{up("eth0")}}}, "qjump is not up on lo"},
		{budgetSource{active: activeConfigs{devices: []dataplane.DeviceConfig{up("eth0"), up("eth1")}}},
			"QJump is up on several devices in this network namespace (eth0, eth1): say which with --dev"},
		{budgetSource{}, "QJump is not up on any device"},
	} {
		_, err := sndBufFlag("auto", c.src, 5)
		var usage *UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("--sndbuf auto --dev %q with %d up: %v; want a usage error saying %q", c.src.dev, len(c.src.active.devices), err, c.says)
		}
	}
}
