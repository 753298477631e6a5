package agent

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/dataplane"
)

// TestSecondAgentRefused: a second agent whose state directory an agent holds refuses to start,
// naming the first, instead of running beside it. In one network namespace the namespace's lock
// refuses it first (TestOneAgentPerNetns); this one holds for agents of different namespaces
// given one directory, which would overwrite each other's record of the cgroups they assigned.
func TestSecondAgentRefused(t *testing.T) {
	if len(dataplane.MissingPrivilege()) > 0 {
		t.Skip("needs root: Run checks privilege before the state directory")
	}
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n"
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first, err := lockStateDir(dir) // the first agent
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{ConfigPath: path, Listen: "127.0.0.1:0", StateDir: dir, CgroupRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err = a.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "another qjump agent (pid "+strconv.Itoa(os.Getpid())+")") {
		t.Fatalf("second agent on the state directory: %v, want a refusal naming the first's pid", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the second agent ran until stopped instead of refusing at start")
	}
	// The first gone (its process ended, or it stopped), the next one starts.
	first.Close()
	next, err := lockStateDir(dir)
	if err != nil {
		t.Fatalf("after the first agent is gone: %v", err)
	}
	next.Close()
}
