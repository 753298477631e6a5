package testbed

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// run executes a configuration command (ip, tc, ethtool) and returns its error with the command
// line and the tool's own message, which is what a user needs to diagnose a refusing kernel.
func run(ctx context.Context, name string, args ...string) error {
	_, err := output(ctx, name, args...)
	return err
}

func output(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("run %s %s: %w: %s", name, strings.Join(args, " "), err,
			strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

// InNS prefixes a command so that it runs in network namespace ns. nsenter switches only the
// network namespace: `ip netns exec` would also remount /sys privately, hiding the cgroup v2
// hierarchy that `qjump run --mode cgroup` needs and the bpffs that `qjump up` pins to.
func InNS(ns string, argv ...string) []string {
	return append([]string{"nsenter", "--net=" + filepath.Join(NetnsDir, ns), "--"}, argv...)
}
