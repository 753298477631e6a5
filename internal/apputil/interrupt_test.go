package apputil

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testutil"
)

// privateBPFFS mounts a bpffs of the test's own and returns it, for QJUMP_BPFFS: the state lock
// the test holds there is no other test's or user's.
func privateBPFFS(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("bpf", dir, "bpf", 0, "mode=0700"); err != nil {
		testutil.Unavailable(t, fmt.Sprintf("mount a bpffs: %v", err))
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// holdStateLock takes QJump's state lock on bpffs, as an up or a reload under way holds it, until
// the test ends or release.
func holdStateLock(t *testing.T, bpffs string) (release func()) {
	t.Helper()
	state := host.StateDirIn(bpffs)
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func() { f.Close() }
}

// waitsForFlock says whether process pid is blocked waiting for an flock (a "->" line of
// /proc/locks names the waiter).
func waitsForFlock(pid int) bool {
	locks, _ := os.ReadFile("/proc/locks")
	for _, line := range strings.Split(string(locks), "\n") {
		f := strings.Fields(line)
		if len(f) > 5 && f[1] == "->" && f[2] == "FLOCK" && f[5] == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}

// A Ctrl-C or SIGTERM that reaches `run --mode cgroup --max-level` while it waits for the state
// lock (an up holds it) removes the cgroup it made, says so and exits 130; CMD is not started.
// The signal used to end qjump there, leaving qjump.slice/run-PID-* until the next run.
func TestCgroupRunInterruptedWaitingForLock(t *testing.T) {
	testutil.RequirePriv(t, "cgroup mode and a bpffs")
	b := programs(t)
	cases := []struct {
		name  string
		sig   syscall.Signal
		stale bool // a killed run's cgroup is there to sweep, whose ceiling clear waits for the lock
	}{
		{"SIGINT", syscall.SIGINT, false},
		{"SIGTERM", syscall.SIGTERM, false},
		{"SIGINT sweeping", syscall.SIGINT, true},
	}
	for _, tc := range cases {
		sig := tc.sig
		t.Run(tc.name, func(t *testing.T) {
			bpffs := privateBPFFS(t)
			holdStateLock(t, bpffs)
			if tc.stale {
				staleCgroup(t)
			}
			marker := filepath.Join(t.TempDir(), "started")
			cmd := exec.Command(b.qjump, runArgs(ModeCgroup, "1", []string{"--max-level", "3"}, "touch", marker)...)
			cmd.Env = append(qjumpEnv(), host.BPFFSEnv+"="+bpffs)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() }) // only if the test fails
			cgroups := filepath.Join(mustRoot(t), Slice, fmt.Sprintf("run-%d-*", cmd.Process.Pid))
			testutil.WaitFor(t, 10*time.Second, "run to wait for the state lock", func() bool { return waitsForFlock(cmd.Process.Pid) })
			if m, _ := filepath.Glob(cgroups); !tc.stale && len(m) != 1 {
				t.Fatalf("the run's cgroup while it waits for the lock: %v, want one", m)
			}
			_ = cmd.Process.Signal(sig)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("%v did not end run waiting for the lock (stderr %q)", sig, stderr.String())
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			says := "removed its cgroup"
			if tc.stale {
				says = "no cgroup made"
			}
			if ws.Signaled() || ws.ExitStatus() != 130 || !strings.Contains(stderr.String(), says) {
				t.Errorf("run ended %v, stderr %q; want exit 130 saying %q", cmd.ProcessState, stderr.String(), says)
			}
			if m, _ := filepath.Glob(cgroups); len(m) != 0 {
				t.Errorf("cgroup left behind: %v", m)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("CMD ran although run was interrupted before it started")
			}
		})
	}
}

// staleCgroup makes the cgroup of a run whose qjump is gone, for the next run to sweep, and
// removes it when the test ends if that run did not.
func staleCgroup(t *testing.T) {
	t.Helper()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Join(mustRoot(t), Slice)
	if err := os.Mkdir(parent, 0o755); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	stale := filepath.Join(parent, fmt.Sprintf("run-%d-stale", dead.Process.Pid))
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.Remove(stale)
		_ = os.Remove(parent) // unless a run is in it
	})
}

// A qjump started with SIGINT ignored (a shell's trap "" INT; Go honours an inherited SIG_IGN for
// SIGHUP and SIGINT only) keeps ignoring it while it waits for the lock, and runs CMD once it has
// the lock: catching it for the interrupt would undo the ignoring, as forwarding would
// (forwardable).
func TestRunIgnoringSIGINTIgnoresItBeforeCMD(t *testing.T) {
	testutil.RequirePriv(t, "cgroup mode and a bpffs")
	b := programs(t)
	bpffs := privateBPFFS(t)
	release := holdStateLock(t, bpffs)
	marker := filepath.Join(t.TempDir(), "started")
	cmd := exec.Command("sh", "-c", `trap "" INT; exec "$0" run --mode cgroup --level 1 --max-level 3 -- touch "$1"`, b.qjump, marker)
	cmd.Env = append(qjumpEnv(), host.BPFFSEnv+"="+bpffs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // only if the test fails
	testutil.WaitFor(t, 10*time.Second, "run to wait for the state lock", func() bool { return waitsForFlock(cmd.Process.Pid) })
	_ = cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond)
	release()
	err := cmd.Wait()
	if _, statErr := os.Stat(marker); err != nil || statErr != nil {
		t.Errorf("run with INT ignored, sent it while it waited: %v, stderr %q, CMD ran: %v; want CMD run and exit 0",
			err, stderr.String(), statErr == nil)
	}
}
