package agent

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/host"
)

// TestSecondAgentRefused: a second agent whose state directory an agent holds refuses to start,
// naming the first, instead of running beside it. In one network namespace the namespace's lock
// refuses it first (TestOneAgentPerNetns); this one holds for agents of different namespaces
// given one directory, which would overwrite each other's record of the cgroups they assigned.
func TestSecondAgentRefused(t *testing.T) {
	requireAgentPrivilege(t) // New checks privilege before the state directory
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

// TestStateDirLockIsOnTheFileAtThePath: an agent stopping with --down-on-exit removes agent.lock.
// Another agent that opened the file just before took its flock on the removed file, which nobody
// else sees, and ran: a third one then made a new file, locked it, and ran too, two agents on one
// directory. The lock now counts only on the file at the path. The file is removed, or replaced by
// one another agent holds, between lockStateDir's open and its flock (the seam beforeStateFlock).
func TestStateDirLockIsOnTheFileAtThePath(t *testing.T) {
	old := beforeStateFlock
	t.Cleanup(func() { beforeStateFlock = old })
	pid := strconv.Itoa(os.Getpid())

	t.Run("removed", func(t *testing.T) {
		dir := t.TempDir()
		once := false
		beforeStateFlock = func(path string) {
			if !once {
				once = true
				if err := os.Remove(path); err != nil { // the stopping agent's stop
					t.Fatal(err)
				}
			}
		}
		lock, err := lockStateDir(dir)
		if err != nil {
			t.Fatalf("the lock file removed between open and flock: %v; want the lock taken on the new file", err)
		}
		defer lock.Close()
		beforeStateFlock = old
		if holder, ok := host.LockHolder(lockFile(dir)); !ok || holder != os.Getpid() {
			t.Errorf("the holder of the file at the path: %d, %v; want this process (%d): the lock is on a removed file",
				holder, ok, os.Getpid())
		}
		if third, err := lockStateDir(dir); err == nil {
			third.Close()
			t.Errorf("a third agent locked the directory too: two agents on one state directory")
		} else if !strings.Contains(err.Error(), "another qjump agent (pid "+pid+")") {
			t.Errorf("third agent: %v; want a refusal naming pid %s", err, pid)
		}
	})

	t.Run("replaced by a file another agent holds", func(t *testing.T) {
		dir := t.TempDir()
		var other *os.File
		t.Cleanup(func() {
			if other != nil {
				other.Close()
			}
		})
		once := false
		beforeStateFlock = func(path string) {
			if once {
				return // the other agent's own lockStateDir, below
			}
			once = true
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			var err error
			if other, err = lockStateDir(dir); err != nil { // the third agent, before this one's flock
				t.Fatal(err)
			}
		}
		lock, err := lockStateDir(dir)
		if err == nil {
			lock.Close()
			t.Fatal("the lock file replaced by one another agent holds: locked all the same, two agents on one directory")
		}
		if !strings.Contains(err.Error(), "another qjump agent (pid "+pid+") keeps its state in "+dir) {
			t.Errorf("%v; want the refusal naming the holder, pid %s", err, pid)
		}
	})
}
