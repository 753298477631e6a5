package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestConfigMapSwap plays the kubelet's update of a ConfigMap volume: the file is a symlink
// through ..data, and an update writes a new timestamped directory and renames a new ..data
// symlink over the old one. Nothing happens to the path the agent was given, yet the change
// must arrive.
func TestConfigMapSwap(t *testing.T) {
	dir := t.TempDir()
	version := func(name, content string) {
		t.Helper()
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "cluster.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(name, filepath.Join(dir, "..data_tmp")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	version("..2026_01_01_00_00_00.1", "hosts: 1\n")
	path := filepath.Join(dir, "cluster.yaml")
	if err := os.Symlink("..data/cluster.yaml", path); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := make(chan fileChange, 4)
	if err := watchConfig(ctx, path, changes); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	version("..2026_01_01_00_01_00.2", "hosts: 2\n")
	_ = os.RemoveAll(filepath.Join(dir, "..2026_01_01_00_00_00.1"))
	select {
	case fc := <-changes:
		if fc.err != nil || string(fc.data) != "hosts: 2\n" {
			t.Errorf("after the swap read %q, %v", fc.data, fc.err)
		}
		t.Logf("swap seen after %s", time.Since(start).Round(time.Millisecond))
	case <-time.After(time.Second):
		t.Fatal("the ConfigMap swap was not seen within a second")
	}
}
