package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCgroupWatchSeesTheFilesCgroups: a cgroup the file names being made or removed (a service
// starting, or restarting with a new cgroup) wakes the loop; other directories made beside it do
// not, nor anything once the file no longer names it. Plain directories stand in for cgroupfs,
// where making a cgroup is a mkdir that inotify reports the same way.
func TestCgroupWatchSeesTheFilesCgroups(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 1)
	cw, err := watchCgroups(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	slice := t.TempDir()
	service := filepath.Join(slice, "memcached.service")
	cw.set([]string{service})
	woken := func(within time.Duration) bool {
		select {
		case <-changed:
			return true
		case <-time.After(within):
			return false
		}
	}
	if err := os.Mkdir(filepath.Join(slice, "other.service"), 0o755); err != nil {
		t.Fatal(err)
	}
	if woken(200 * time.Millisecond) {
		t.Error("woken by a cgroup the file does not name")
	}
	if err := os.Mkdir(service, 0o755); err != nil {
		t.Fatal(err)
	}
	if !woken(2 * time.Second) {
		t.Fatal("not woken when the file's cgroup was made")
	}
	if err := os.Remove(service); err != nil {
		t.Fatal(err)
	}
	if !woken(2 * time.Second) {
		t.Fatal("not woken when the file's cgroup was removed")
	}
	cw.set(nil)
	if err := os.Mkdir(service, 0o755); err != nil {
		t.Fatal(err)
	}
	if woken(200 * time.Millisecond) {
		t.Error("woken by a cgroup the file no longer names")
	}
}
