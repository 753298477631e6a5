package apputil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

// These tests run the qjump binary on real programs that report what the kernel gave their
// sockets: the C probe (preload/test/testdata/probe.c), a Python one and a statically linked Go
// one (testdata/). Preload mode needs no root; cgroup mode does.

// bins are the programs the tests run, built once per test binary.
type bins struct {
	qjump, cprobe, goprobe, python, pyprobe string
	// noLoader is the C probe linked for an ELF loader that is not there: exec says "no such
	// file" of a file that is.
	noLoader string
}

// shimCache is where the qjump the tests run writes its shim, instead of the user's ~/.cache (set
// for qjump only: go build keeps its own cache there).
var shimCache string

func qjumpEnv() []string { return append(os.Environ(), "XDG_CACHE_HOME="+shimCache) }

var (
	buildOnce sync.Once
	built     bins
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	cache, err := os.MkdirTemp("", "qjap-cache-")
	if err != nil {
		panic(err)
	}
	shimCache = cache
	code := testutil.Main(m)
	os.RemoveAll(cache)
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func programs(t *testing.T) bins {
	t.Helper()
	buildOnce.Do(func() { built, buildErr = buildPrograms() })
	if errors.Is(buildErr, exec.ErrNotFound) {
		testutil.Unavailable(t, fmt.Sprintf("a tool to build the test programs is missing: %v", buildErr))
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	built.qjump = testutil.QjumpBinary(t)
	return built
}

func buildPrograms() (bins, error) {
	dir, err := os.MkdirTemp("", "qjap-bin-")
	if err != nil {
		return bins{}, err
	}
	buildDir = dir
	// Others may enter: one test runs qjump as nobody.
	if err := os.Chmod(dir, 0o755); err != nil {
		return bins{}, err
	}
	b := bins{cprobe: filepath.Join(dir, "cprobe"),
		goprobe: filepath.Join(dir, "goprobe"), pyprobe: filepath.Join(dir, "probe.py"),
		noLoader: filepath.Join(dir, "no-loader")}
	steps := []*exec.Cmd{
		exec.Command("go", "build", "-o", b.goprobe, "./testdata/goprobe"),
		exec.Command("clang", "-O2", "-Wall", "-pthread", "-o", b.cprobe, "../../preload/test/testdata/probe.c"),
		exec.Command("cp", "testdata/probe.py", b.pyprobe),
		exec.Command("clang", "-O2", "-Wall", "-pthread", "-Wl,--dynamic-linker="+missingLoader, "-o", b.noLoader, "../../preload/test/testdata/probe.c"),
	}
	steps[0].Env = append(os.Environ(), "CGO_ENABLED=0") // static: LD_PRELOAD cannot reach it
	for _, c := range steps {
		if out, err := c.CombinedOutput(); err != nil {
			return b, fmt.Errorf("%v: %w\n%s", c.Args, err, out)
		}
	}
	if b.python, err = exec.LookPath("/usr/bin/python3"); err != nil {
		if b.python, err = exec.LookPath("python3"); err != nil {
			return b, err
		}
	}
	return b, nil
}

// outcome is one qjump run: what CMD reported, qjump's stderr and how qjump ended.
type outcome struct {
	values map[string]string
	stdout string
	stderr string
	state  *os.ProcessState
}

func (o outcome) code() int { return o.state.ExitCode() }

func (o outcome) signal() syscall.Signal {
	if ws := o.state.Sys().(syscall.WaitStatus); ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

func runQjump(t *testing.T, attr *syscall.SysProcAttr, args ...string) outcome {
	t.Helper()
	b := programs(t)
	cmd := exec.Command(b.qjump, args...)
	if len(args) > 0 && args[0] == "netns" { // ip netns exec NS qjump ...
		cmd = exec.Command("ip", args...)
	}
	cmd.Env = qjumpEnv()
	cmd.SysProcAttr = attr
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("qjump %v: %v", args, err)
	}
	return outcome{values: testutil.ParseValues(stdout.String()), stdout: stdout.String(), stderr: stderr.String(),
		state: cmd.ProcessState}
}

// runArgs is `qjump run` in a mode at a level, with extra flags, for CMD.
func runArgs(mode Mode, level string, extra []string, cmd ...string) []string {
	args := append([]string{"run", "--mode", string(mode), "--level", level}, extra...)
	return append(append(args, "--"), cmd...)
}

func requireMode(t *testing.T, mode Mode) {
	t.Helper()
	if mode == ModeCgroup {
		testutil.RequirePriv(t, "cgroup mode (loads eBPF into a cgroup)")
	}
}

func expectValues(t *testing.T, o outcome, want map[string]string) {
	t.Helper()
	if o.code() != 0 {
		t.Errorf("exit status %d, stderr %q", o.code(), o.stderr)
	}
	for k, v := range want {
		if o.values[k] != v {
			t.Errorf("%s = %q, want %q (all: %v, stderr %q)", k, o.values[k], v, o.values, o.stderr)
		}
	}
}

func onLevel(l string) map[string]string {
	return map[string]string{"tcp": l, "udp": l, "accepted": l}
}

func TestProgramsInEachLanguage(t *testing.T) {
	b := programs(t)
	languages := []struct {
		name string
		cmd  []string
		// preloadReaches says whether LD_PRELOAD can reach the program: not a static binary.
		preloadReaches bool
	}{
		{"C", []string{b.cprobe}, true},
		{"Python", []string{b.python, b.pyprobe}, true},
		{"static Go", []string{b.goprobe}, false},
	}
	for _, mode := range []Mode{ModePreload, ModeCgroup} {
		for _, lang := range languages {
			t.Run(string(mode)+"/"+lang.name, func(t *testing.T) {
				requireMode(t, mode)
				o := runQjump(t, nil, runArgs(mode, "5", nil, lang.cmd...)...)
				if mode == ModePreload && !lang.preloadReaches {
					// The point of cgroup mode: preload would run it on no level, and says so
					// instead of running it.
					if o.code() != 2 || !strings.Contains(o.stderr, "--mode cgroup") {
						t.Errorf("preload of a program it cannot reach: exit %d, stderr %q; want 2, pointing to --mode cgroup", o.code(), o.stderr)
					}
					return
				}
				expectValues(t, o, onLevel("5"))
			})
		}
	}
}

func TestProgramSetsItsOwnPriority(t *testing.T) {
	b := programs(t)
	for _, mode := range []Mode{ModePreload, ModeCgroup} {
		for _, probe := range [][]string{{b.cprobe, "set", "3"}, {b.goprobe, "set", "3"}} {
			if mode == ModePreload && probe[0] == b.goprobe {
				continue
			}
			name := string(mode) + "/" + filepath.Base(probe[0])
			t.Run(name+"/free", func(t *testing.T) {
				requireMode(t, mode)
				expectValues(t, runQjump(t, nil, runArgs(mode, "5", nil, probe...)...), map[string]string{"set": "0 3"})
			})
			t.Run(name+"/enforce", func(t *testing.T) {
				requireMode(t, mode)
				o := runQjump(t, nil, runArgs(mode, "5", []string{"--enforce"}, probe...)...)
				expectValues(t, o, map[string]string{"set": "0 5", "tcp": "5"})
				if !strings.Contains(o.stderr, "SO_PRIORITY") {
					t.Errorf("the refusal is not reported: stderr %q", o.stderr)
				}
			})
		}
	}
}

// A program that sets its own SO_PRIORITY and then IP_TOS gets what Linux gives it without
// --enforce, in both modes: 2, then 2 (a TOS that does not change leaves the priority), then 6
// (the kernel's priority for TOS 0x10). The shim put the level back after every IP_TOS, so
// preload mode gave 2, 3, 3 although the program's own setting wins. With --enforce the level
// wins in preload mode; cgroup mode cannot undo IP_TOS (docs/apputil.md).
func TestIPTOSAfterProgramsOwnPriority(t *testing.T) {
	b := programs(t)
	cmd := []string{b.python, b.pyprobe, "set-tos", "2", "0", "16"}
	for _, mode := range []Mode{ModePreload, ModeCgroup} {
		t.Run(string(mode), func(t *testing.T) {
			requireMode(t, mode)
			expectValues(t, runQjump(t, nil, runArgs(mode, "3", nil, cmd...)...), map[string]string{"set-tos": "2 2 6", "tcp": "3"})
		})
	}
	t.Run("preload/enforce", func(t *testing.T) {
		expectValues(t, runQjump(t, nil, runArgs(ModePreload, "3", []string{"--enforce"}, cmd...)...), map[string]string{"set-tos": "3 3 3"})
	})
}

func TestForkAndExecChildrenKeepLevel(t *testing.T) {
	b := programs(t)
	script := b.cprobe + " fork | sed s/^/a-/; " + b.goprobe + " | sed s/^/b-/"
	for _, mode := range []Mode{ModePreload, ModeCgroup} {
		t.Run(string(mode), func(t *testing.T) {
			requireMode(t, mode)
			o := runQjump(t, nil, runArgs(mode, "2", nil, "sh", "-c", script)...)
			want := map[string]string{"a-tcp": "2", "a-accepted": "2", "a-child-tcp": "2"}
			if mode == ModeCgroup {
				want["b-tcp"], want["b-accepted"] = "2", "2"
			}
			expectValues(t, o, want)
		})
	}
}

func TestMissingCommand(t *testing.T) {
	for _, mode := range []Mode{ModePreload, ModeCgroup} {
		t.Run(string(mode), func(t *testing.T) {
			requireMode(t, mode)
			o := runQjump(t, nil, runArgs(mode, "1", nil, "qjap-no-such-command", "x")...)
			if o.code() != 127 || !strings.Contains(o.stderr, "command not found: qjap-no-such-command") {
				t.Errorf("exit %d, stderr %q; want 127 and the command named", o.code(), o.stderr)
			}
		})
	}
}

// missingLoader is the ELF loader bins.noLoader was linked for.
const missingLoader = "/nonexistent/qjap-ld.so"

// A CMD that is there but cannot be run ends as it would in bash: 126 for a directory (bash: "Is
// a directory"), a file without execute permission, a path through a file; 127 for a file whose
// interpreter (its #! line) or ELF loader is missing, which exec reports as "no such file" of the
// file itself (bash: "cannot execute: required file not found"), with a message naming what is
// missing. Before, a directory and a path through a file were "command not found" (127), and a
// missing interpreter or loader ended qjump with status 1 and "no such file or directory" of a
// file that was there.
func TestCommandThatCannotRun(t *testing.T) {
	b := programs(t)
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	noInterp := write("no-interp.sh", "#!/nonexistent/qjap-interp -x\necho hi\n", 0o755)
	crlf := write("crlf.sh", "#!/bin/sh\r\necho hi\r\n", 0o755) // saved on Windows: the kernel looks for "/bin/sh\r"
	plain := write("plain.sh", "echo hi\n", 0o644)
	cases := []struct {
		name string
		cmd  string
		code int
		says string
	}{
		{"directory", dir, 126, "command not executable: " + dir + ": is a directory"},
		{"path through a file", filepath.Join(plain, "x"), 126, "not a directory"},
		{"no execute permission", plain, 126, "command not executable: " + plain + ": permission denied"},
		{"missing interpreter", noInterp, 127, `cannot execute: required file not found: ` + noInterp + ` is there, but its interpreter "/nonexistent/qjap-interp" (its #! line) is not`},
		{"interpreter with a carriage return", crlf, 127, `its interpreter "/bin/sh\r" (its #! line) is not`},
		{"missing ELF loader", b.noLoader, 127, `cannot execute: required file not found: ` + b.noLoader + ` is there, but its ELF loader "` + missingLoader + `" is not`},
	}
	for _, mode := range []Mode{ModePreload, ModeCgroup} {
		for _, c := range cases {
			t.Run(string(mode)+"/"+c.name, func(t *testing.T) {
				requireMode(t, mode)
				o := runQjump(t, nil, runArgs(mode, "5", nil, c.cmd)...)
				if o.code() != c.code || !strings.Contains(o.stderr, c.says) {
					t.Errorf("exit %d, stderr %q; want %d and %q", o.code(), o.stderr, c.code, c.says)
				}
			})
		}
	}
}

// A script without a #! line runs with /bin/sh, as a shell and execvp(3) run it, and its
// programs are on the level; a file that is not text stays 126, as in bash ("cannot execute
// binary file"). Before, every such script was 126.
func TestScriptWithoutInterpreterLine(t *testing.T) {
	b := programs(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "probe-script")
	if err := os.WriteFile(script, []byte("exec "+b.cprobe+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "binary")
	if err := os.WriteFile(binary, []byte("\x00\x01not text\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// #! naming no interpreter, a NUL on the next line: bash looks past the first line of such a
	// file (review, helper-92).
	emptyShebang := filepath.Join(dir, "empty-shebang")
	if err := os.WriteFile(emptyShebang, []byte("#!\n\x00\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModePreload, ModeCgroup} {
		t.Run(string(mode), func(t *testing.T) {
			requireMode(t, mode)
			expectValues(t, runQjump(t, nil, runArgs(mode, "5", nil, script)...), onLevel("5"))
			for _, file := range []string{binary, emptyShebang} {
				o := runQjump(t, nil, runArgs(mode, "5", nil, file)...)
				if o.code() != 126 || !strings.Contains(o.stderr, "exec format error") {
					t.Errorf("%s, not text: exit %d, stderr %q; want 126 and exec format error", filepath.Base(file), o.code(), o.stderr)
				}
			}
		})
	}
}

// A name that PATH finds only as a file without execute permission is 126 naming it, as bash
// says; one PATH finds only through a relative directory, which qjump does not run, says where it
// found it and what to give instead, not "command not found" (review, helper-75).
func TestCommandFoundInPathButNotRun(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "abs", "qjap-noexec"), "echo hi\n")
	if err := os.MkdirAll(filepath.Join(dir, "rel"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rel", "qjap-rel"), []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("PATH", filepath.Join(dir, "abs")+":rel:"+os.Getenv("PATH"))
	for _, c := range []struct {
		cmd  string
		code int
		says string
	}{
		{"qjap-noexec", 126, "command not executable: qjap-noexec: " + filepath.Join(dir, "abs", "qjap-noexec") + " has no execute permission"},
		{"qjap-rel", 126, "found as rel/qjap-rel, through a relative directory in PATH, which qjump does not run: give its path, ./rel/qjap-rel"},
		{"qjap-nowhere", 127, "command not found: qjap-nowhere"},
	} {
		o := runQjump(t, nil, runArgs(ModePreload, "5", nil, c.cmd)...)
		if o.code() != c.code || !strings.Contains(o.stderr, c.says) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", c.cmd, o.code(), o.stderr, c.code, c.says)
		}
	}
}

func TestExitStatusAndSignalPassThrough(t *testing.T) {
	for _, mode := range []Mode{ModePreload, ModeCgroup} {
		t.Run(string(mode)+"/exit", func(t *testing.T) {
			requireMode(t, mode)
			if o := runQjump(t, nil, runArgs(mode, "1", nil, "sh", "-c", "exit 3")...); o.code() != 3 {
				t.Errorf("exit status %d, want 3 (stderr %q)", o.code(), o.stderr)
			}
		})
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL, syscall.SIGSEGV, syscall.SIGQUIT} {
			t.Run(fmt.Sprintf("%s/%v", mode, sig), func(t *testing.T) {
				requireMode(t, mode)
				o := runQjump(t, nil, runArgs(mode, "1", nil, "sh", "-c", fmt.Sprintf("kill -%d $$", sig))...)
				if o.signal() != sig {
					t.Errorf("qjump ended %v, want killed by %v (stderr %q)", o.state, sig, o.stderr)
				}
			})
		}
	}
}

// A signal sent to qjump in cgroup mode reaches CMD, and the cgroup goes away afterwards.
func TestCgroupModeForwardsSignalsAndCleansUp(t *testing.T) {
	testutil.RequirePriv(t, "cgroup mode")
	b := programs(t)
	cmd := exec.Command(b.qjump, runArgs(ModeCgroup, "1", nil, "sh", "-c", "sleep 20 & wait")...)
	cmd.Env = qjumpEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cgroups := filepath.Join(mustRoot(t), Slice, fmt.Sprintf("run-%d-*", cmd.Process.Pid))
	testutil.WaitFor(t, 5*time.Second, "the run's cgroup with its process", func() bool { m, _ := filepath.Glob(cgroups); return len(m) == 1 && populated(m[0]) })
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("qjump ended %v, want killed by SIGTERM like CMD (stderr %q)", cmd.ProcessState, stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("qjump took %v to pass SIGTERM on", d)
	}
	if m, _ := filepath.Glob(cgroups); len(m) != 0 {
		t.Errorf("cgroup left behind: %v", m)
	}
}

// A daemon CMD leaves behind is ended with the cgroup: nothing stays on the level unseen.
func TestCgroupModeEndsLeftovers(t *testing.T) {
	testutil.RequirePriv(t, "cgroup mode")
	start := time.Now()
	o := runQjump(t, nil, runArgs(ModeCgroup, "1", nil, "sh", "-c", "sleep 30 >/dev/null 2>&1 & echo daemon $!")...)
	if o.code() != 0 || time.Since(start) > 10*time.Second {
		t.Errorf("exit %d after %v, stderr %q", o.code(), time.Since(start), o.stderr)
	}
	daemon, err := strconv.Atoi(o.values["daemon"])
	if err != nil || daemon <= 0 {
		t.Fatalf("CMD reported no daemon PID: %v", o.values)
	}
	t.Cleanup(func() { _ = syscall.Kill(daemon, syscall.SIGKILL) }) // only if the test fails
	// The daemon was reparented to init, which reaps it soon after cgroup.kill.
	testutil.WaitFor(t, 5*time.Second, "the daemon to be reaped", func() bool { return syscall.Kill(daemon, 0) == syscall.ESRCH })
	cgroups := filepath.Join(mustRoot(t), Slice, fmt.Sprintf("run-%d-*", o.state.Pid()))
	if m, _ := filepath.Glob(cgroups); len(m) != 0 {
		t.Errorf("cgroup left behind: %v", m)
	}
}

func TestLevel7(t *testing.T) {
	testutil.RequirePriv(t, "running qjump as root and as nobody")
	b := programs(t)
	expectValues(t, runQjump(t, nil, runArgs(ModePreload, "7", nil, b.cprobe)...), onLevel("7"))
	nobody := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cache := testutil.SharedTempDir(t) // nobody's shim cache
	if err := os.Chown(cache, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	saved := shimCache
	shimCache = cache
	t.Cleanup(func() { shimCache = saved })
	o := runQjump(t, nobody, runArgs(ModePreload, "7", nil, b.cprobe)...)
	if o.code() != 1 || !strings.Contains(o.stderr, "level 7 needs CAP_NET_ADMIN or CAP_NET_RAW") || len(o.values) > 1 {
		t.Errorf("nobody at level 7: exit %d, stderr %q, program output %v; want exit 1, the refusal, and no program run",
			o.code(), o.stderr, o.values)
	}
	// Levels up to 6 need nothing.
	expectValues(t, runQjump(t, nobody, runArgs(ModePreload, "6", nil, b.cprobe)...), onLevel("6"))
	// An ambient CAP_NET_RAW survives the exec into CMD, so level 7 is allowed.
	ambient := &syscall.SysProcAttr{Credential: nobody.Credential, AmbientCaps: []uintptr{unix.CAP_NET_RAW}}
	expectValues(t, runQjump(t, ambient, runArgs(ModePreload, "7", nil, b.cprobe)...), onLevel("7"))
}

func TestSendBuffer(t *testing.T) {
	b := programs(t)
	config := filepath.Join(t.TempDir(), "qjump.yaml")
	os.WriteFile(config, []byte(paperYAML), 0o644)
	// The kernel doubles SO_SNDBUF; auto is 2·f·P = 18000 bytes at level 5.
	expectValues(t, runQjump(t, nil, runArgs(ModePreload, "5", []string{"--sndbuf", "20000"}, b.cprobe)...),
		map[string]string{"sndbuf": "40000", "accepted-sndbuf": "40000"})
	expectValues(t, runQjump(t, nil, runArgs(ModePreload, "5", []string{"--sndbuf", "auto", "--config", config}, b.cprobe)...),
		map[string]string{"sndbuf": "36000"})
	t.Run("level 7", func(t *testing.T) {
		testutil.RequirePriv(t, "level 7 (CAP_NET_ADMIN)")
		// 2·1·1500 = 3000 bytes, doubled like any other (docs/apputil.md).
		expectValues(t, runQjump(t, nil, runArgs(ModePreload, "7", []string{"--sndbuf", "auto", "--config", config}, b.cprobe)...),
			map[string]string{"sndbuf": "6000", "tcp": "7"})
	})
	o := runQjump(t, nil, runArgs(ModePreload, "5", []string{"--sndbuf", "auto"}, b.cprobe)...)
	if o.code() != 2 || !strings.Contains(o.stderr, "--config") {
		t.Errorf("--sndbuf auto without a config: exit %d, stderr %q; want 2 and what it needs", o.code(), o.stderr)
	}
	t.Run("cgroup", func(t *testing.T) {
		requireMode(t, ModeCgroup)
		expectValues(t, runQjump(t, nil, runArgs(ModeCgroup, "5", []string{"--sndbuf", "20000"}, b.cprobe)...),
			map[string]string{"accepted-sndbuf": "40000", "accepted": "5"})
	})
}

func TestAssignAndUnassign(t *testing.T) {
	testutil.RequirePriv(t, "cgroup programs")
	b := programs(t)
	cg := testCgroup(t)
	if o := runQjump(t, nil, "assign", "--cgroup", cg, "--level", "6"); o.code() != 0 {
		t.Fatalf("assign: exit %d, stderr %q", o.code(), o.stderr)
	}
	t.Cleanup(func() { Unassign(cg) })
	// qjump has exited: the pinned links keep the cgroup on its level.
	expectValues(t, runInCgroup(t, cg, b.goprobe), onLevel("6"))
	if o := runQjump(t, nil, "assign", "--cgroup", cg, "--level", "4"); o.code() != 0 {
		t.Fatalf("reassign: exit %d, stderr %q", o.code(), o.stderr)
	}
	expectValues(t, runInCgroup(t, cg, b.goprobe), onLevel("4"))
	if o := runQjump(t, nil, "unassign", "--cgroup", cg); o.code() != 0 {
		t.Fatalf("unassign: exit %d, stderr %q", o.code(), o.stderr)
	}
	expectValues(t, runInCgroup(t, cg, b.goprobe), onLevel("0"))
	dir, _ := pinDir(cg)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unassign left %s: %v", dir, err)
	}
	// A second unassign finds nothing and succeeds, as down of an interface that is not up does.
	if o := runQjump(t, nil, "unassign", "--cgroup", cg); o.code() != 0 || !strings.Contains(o.stderr, "was not assigned: nothing to do") {
		t.Errorf("second unassign: exit %d, stderr %q; want 0 and nothing to do", o.code(), o.stderr)
	}
	if o := runQjump(t, nil, "assign", "--cgroup", "/tmp", "--level", "1"); o.code() != 2 {
		t.Errorf("assign to a directory that is no cgroup: exit %d, stderr %q; want 2", o.code(), o.stderr)
	}
}

// testCgroup is a test-only cgroup, removed when t ends.
func testCgroup(t *testing.T) string {
	t.Helper()
	path, err := os.MkdirTemp(mustRoot(t), "qjap-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0)
		testutil.WaitFor(t, 5*time.Second, "the test cgroup to empty", func() bool { return os.Remove(path) == nil })
	})
	return path
}

// runInCgroup runs argv inside the cgroup at path, as a service manager would.
func runInCgroup(t *testing.T, path string, argv ...string) outcome {
	t.Helper()
	dir, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(dir.Fd())}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v in %s: %v", argv, path, err)
	}
	return outcome{values: testutil.ParseValues(string(out)), state: cmd.ProcessState}
}

func mustRoot(t *testing.T) string {
	t.Helper()
	root, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	return root
}

// --max-level puts the cgroup's ceiling in the dataplane's shared map; unassign takes it out.
func TestAssignMaxLevelSetsCeiling(t *testing.T) {
	testutil.RequirePriv(t, "cgroup programs and the dataplane's ceiling map")
	cg := testCgroup(t)
	id, err := host.CgroupID(cg)
	if err != nil {
		t.Fatal(err)
	}
	if o := runQjump(t, nil, "assign", "--cgroup", cg, "--level", "2", "--max-level", "3"); o.code() != 0 {
		t.Fatalf("assign: exit %d, stderr %q", o.code(), o.stderr)
	}
	t.Cleanup(func() { Unassign(cg) })
	if got, ok := ceilingOf(t, id); !ok || got != 3 {
		t.Errorf("ceiling of cgroup %d = %d (present %v), want 3", id, got, ok)
	}
	if o := runQjump(t, nil, "unassign", "--cgroup", cg); o.code() != 0 {
		t.Fatalf("unassign: exit %d, stderr %q", o.code(), o.stderr)
	}
	if got, ok := ceilingOf(t, id); ok {
		t.Errorf("unassign left ceiling %d for cgroup %d", got, id)
	}

	// A ceiling whose pins were removed by hand: clearing it is the unassign, which says so
	// rather than "nothing to do" (review, helper-75).
	if o := runQjump(t, nil, "assign", "--cgroup", cg, "--level", "2", "--max-level", "3"); o.code() != 0 {
		t.Fatalf("assign again: exit %d, stderr %q", o.code(), o.stderr)
	}
	dir, _ := pinDir(cg)
	if err := unpinAll(dir); err != nil {
		t.Fatal(err)
	}
	if o := runQjump(t, nil, "unassign", "--cgroup", cg); o.code() != 0 || !strings.Contains(o.stdout, "unassigned") {
		t.Errorf("unassign of a ceiling without pins: exit %d, stdout %q, stderr %q; want 0 and unassigned", o.code(), o.stdout, o.stderr)
	}
	if got, ok := ceilingOf(t, id); ok {
		t.Errorf("unassign of a ceiling without pins left ceiling %d for cgroup %d", got, id)
	}
}

// Assigning again replaces every setting, the ceiling too; an assign that drops the ceiling
// says so, naming the one it removes, and one that changes it names the one it had. Before, a
// reassign without --max-level printed only the level, and the tenant the ceiling kept off the
// higher levels was silently free of it.
func TestReassignSaysWhatBecameOfTheCeiling(t *testing.T) {
	testutil.RequirePriv(t, "cgroup programs and the dataplane's ceiling map")
	cg := testCgroup(t)
	id, err := host.CgroupID(cg)
	if err != nil {
		t.Fatal(err)
	}
	assign := func(args ...string) outcome {
		t.Helper()
		o := runQjump(t, nil, append([]string{"assign", "--cgroup", cg, "--level", "5"}, args...)...)
		if o.code() != 0 {
			t.Fatalf("assign %v: exit %d, stderr %q", args, o.code(), o.stderr)
		}
		return o
	}
	if o := assign("--max-level", "5"); strings.Contains(o.stdout, "was") || strings.Contains(o.stderr, "ceiling") {
		t.Errorf("first assign: stdout %q, stderr %q; want nothing of a ceiling before", o.stdout, o.stderr)
	}
	t.Cleanup(func() { Unassign(cg) })
	o := assign("--max-level", "6")
	if !strings.Contains(o.stdout, "never above level 6 (the ceiling was --max-level 5)") {
		t.Errorf("changed ceiling: stdout %q; want it to name the ceiling it replaced", o.stdout)
	}
	o = assign()
	if want := "ceiling removed: its sockets may now set levels above 6 (it was --max-level 6); give --max-level 6 again"; !strings.Contains(o.stderr, want) {
		t.Errorf("ceiling dropped: stderr %q; want %q", o.stderr, want)
	}
	if got, ok := ceilingOf(t, id); ok {
		t.Errorf("ceiling %d still set after an assign without --max-level", got)
	}
	if o := assign(); strings.Contains(o.stderr, "ceiling") {
		t.Errorf("assign without a ceiling before or after: stderr %q; want nothing of a ceiling", o.stderr)
	}
}

func ceilingOf(t *testing.T, id uint64) (uint8, bool) {
	t.Helper()
	m, err := ebpf.LoadPinnedMap("/sys/fs/bpf/qjump/cgroup_ceilings", nil)
	if errors.Is(err, os.ErrNotExist) {
		return 0, false // the last ceiling cleared where QJump is up nowhere takes the map with it
	}
	if err != nil {
		t.Fatalf("open the dataplane's ceiling map: %v", err)
	}
	defer m.Close()
	var v struct{ Level, Depth uint8 } // struct qj_ceiling
	if err := m.Lookup(id, &v); err != nil {
		return 0, false
	}
	return v.Level, true
}

// When qjump is killed outright, CMD does not run on without its level, and the next run sweeps
// the cgroup that was left.
func TestCgroupModeKilledQjump(t *testing.T) {
	testutil.RequirePriv(t, "cgroup mode")
	b := programs(t)
	cmd := exec.Command(b.qjump, runArgs(ModeCgroup, "1", nil, "sleep", "20")...)
	cmd.Env = qjumpEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cgroups := filepath.Join(mustRoot(t), Slice, fmt.Sprintf("run-%d-*", cmd.Process.Pid))
	var procs []byte
	testutil.WaitFor(t, 5*time.Second, "the run's cgroup to hold the child", func() bool {
		m, _ := filepath.Glob(cgroups)
		if len(m) == 1 {
			procs, _ = os.ReadFile(filepath.Join(m[0], "cgroup.procs"))
		}
		return len(bytes.TrimSpace(procs)) > 0
	})
	cmd.Process.Kill()
	cmd.Wait()
	var child int
	fmt.Sscan(string(procs), &child)
	testutil.WaitFor(t, 5*time.Second, "the child to be reaped", func() bool { return syscall.Kill(child, 0) == syscall.ESRCH })
	runQjump(t, nil, runArgs(ModeCgroup, "1", nil, "true")...)
	if m, _ := filepath.Glob(cgroups); len(m) != 0 {
		t.Errorf("stale cgroup not swept: %v", m)
	}
}

// The sweep of a killed run's cgroup also clears its ceiling, or the shared map never empties.
func TestSweepClearsKilledRunsCeiling(t *testing.T) {
	testutil.RequirePriv(t, "cgroups and the dataplane's ceiling map")
	parent := testCgroup(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(parent, fmt.Sprintf("run-%d-1", dead.Process.Pid))
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(stale) })
	id, err := host.CgroupID(stale)
	if err != nil {
		t.Fatal(err)
	}
	three := model.Level(3)
	if err := setCeiling(stale, &three); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dataplane.ClearCgroupCeiling(id) })
	sweep(context.Background(), parent)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale cgroup %s not swept: %v", stale, err)
	}
	if got, ok := ceilingOf(t, id); ok {
		t.Errorf("sweep left ceiling %d for cgroup %d", got, id)
	}
}

// A run in another pid namespace sharing the cgroup hierarchy has a pid that names nothing here:
// its cgroup was taken for a dead run's and its programs killed (review, helper-98). The run's
// lock on its cgroup keeps it; once the lock is released (the run gone), it is swept.
func TestSweepSparesALockedRunOfAnotherPidNamespace(t *testing.T) {
	testutil.RequirePriv(t, "cgroups")
	parent := testCgroup(t)
	gone := exec.Command("true") // the pid the other namespace's run has, which names nothing here
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(parent, fmt.Sprintf("run-%d-1", gone.Process.Pid))
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { endCgroup(path); removeTree(path) })
	lock, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	program := exec.Command("sleep", "30")
	if err := program.Start(); err != nil {
		t.Fatal(err)
	}
	defer program.Process.Kill()
	if err := os.WriteFile(filepath.Join(path, "cgroup.procs"), []byte(strconv.Itoa(program.Process.Pid)), 0); err != nil {
		t.Fatal(err)
	}
	sweep(context.Background(), parent)
	if _, err := os.Stat(path); err != nil || syscall.Kill(program.Process.Pid, 0) != nil {
		t.Fatalf("a locked run's cgroup was swept (%v) or its program killed", err)
	}
	lock.Close() // the run ends
	sweep(context.Background(), parent)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run gone, its cgroup %s is not swept: %v", path, err)
	}
	if err := program.Wait(); err == nil {
		t.Error("the run gone, the program it left ran on")
	}
	// A run's own cgroup is locked from its making.
	own, err := newTransientCgroup(context.Background(), parent)
	if err != nil {
		t.Fatal(err)
	}
	if lock, lives := sweepRunLock(own.path); !lives {
		lock.Close()
		t.Error("a run's new cgroup is not locked: a sweep in another pid namespace would take it for dead")
	}
	own.dir.Close()
	if err := removeTree(own.path); err != nil { // not own.remove, which takes the parent too
		t.Error(err)
	}

	// A sweep that found a new cgroup before its run locked it holds the lock while it removes
	// it; the run waits for the lock, and then finds its cgroup gone (review, helper-100).
	racing := filepath.Join(parent, fmt.Sprintf("run-%d-2", gone.Process.Pid))
	if err := os.Mkdir(racing, 0o755); err != nil {
		t.Fatal(err)
	}
	sweeping, lives := sweepRunLock(racing)
	if lives || sweeping == nil {
		t.Fatalf("an unlocked cgroup: the sweep's lock %v, taken for a live run's %v", sweeping, lives)
	}
	dir, err := os.Open(racing)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	// A Ctrl-C while the run waits for the sweep's lock ends the wait (review, helper-102).
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if k, err := lockRun(stopped, dir, racing); k || !errors.Is(err, ErrInterrupted) {
		t.Errorf("waiting for a sweep's lock, interrupted: kept %v, %v; want ErrInterrupted", k, err)
	}
	kept := make(chan bool)
	go func() { k, _ := lockRun(context.Background(), dir, racing); kept <- k }()
	time.Sleep(100 * time.Millisecond) // the run waits for the sweep's lock meanwhile
	if err := removeTree(racing); err != nil {
		t.Fatal(err)
	}
	sweeping.Close()
	if <-kept {
		t.Error("a run whose cgroup a sweep removed while it waited for the lock takes the removed cgroup for its own")
	}
}

// A cgroup removed while assigned leaves pins nothing can unassign by path; the next assign
// sweeps them.
func TestAssignSweepsRemovedCgroups(t *testing.T) {
	testutil.RequirePriv(t, "cgroup programs")
	gone, err := os.MkdirTemp(mustRoot(t), "qjap-gone-")
	if err != nil {
		t.Fatal(err)
	}
	if err := Assign(gone, Settings{Level: 1}); err != nil {
		os.Remove(gone)
		t.Fatal(err)
	}
	dir, _ := pinDir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	cg := testCgroup(t)
	if err := Assign(cg, Settings{Level: 2}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Unassign(cg) })
	testutil.WaitFor(t, 5*time.Second, "the released cgroup's pins to be pruned", func() bool {
		Assign(cg, Settings{Level: 2}) // the link goes defunct once the cgroup is released
		_, err := os.Stat(dir)
		return errors.Is(err, os.ErrNotExist)
	})
}

// unassign of a cgroup removed while assigned removes its leftovers, pins and ceiling, which its
// path no longer leads to: it said "not a cgroup v2 directory" and left every packet paying for
// the ceiling's lookup until the next assign. A path that never was, with nothing left to remove,
// is still refused.
func TestUnassignOfARemovedCgroup(t *testing.T) {
	testutil.RequirePriv(t, "cgroup programs and the dataplane's ceiling map")
	gone, err := os.MkdirTemp(mustRoot(t), "qjap-gone-")
	if err != nil {
		t.Fatal(err)
	}
	if o := runQjump(t, nil, "assign", "--cgroup", gone, "--level", "2", "--max-level", "3"); o.code() != 0 {
		os.Remove(gone)
		t.Fatalf("assign: exit %d, stderr %q", o.code(), o.stderr)
	}
	id, _ := host.CgroupID(gone)
	dir, _ := pinDir(gone)
	t.Cleanup(func() { dataplane.ClearCgroupCeiling(id) })
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	var o outcome
	testutil.WaitFor(t, 5*time.Second, "unassign to remove the removed cgroup's pins", func() bool {
		o = runQjump(t, nil, "unassign", "--cgroup", gone) // the link goes defunct once the cgroup is released
		_, err := os.Stat(dir)
		return o.code() == 0 && errors.Is(err, os.ErrNotExist)
	})
	if !strings.Contains(o.stdout, "here: removed what assign left of") {
		t.Errorf("unassign of a removed cgroup: stdout %q; want it to say what it removed", o.stdout)
	}
	if got, ok := ceilingOf(t, id); ok {
		t.Errorf("unassign of a removed cgroup left its ceiling %d", got)
	}
	o = runQjump(t, nil, "unassign", "--cgroup", gone)
	if o.code() != 2 || !strings.Contains(o.stderr, "not a cgroup v2 directory") {
		t.Errorf("unassign with nothing left: exit %d, stderr %q; want 2, not a cgroup v2 directory", o.code(), o.stderr)
	}
}

// A reassign that is refused (here: a ceiling on a cgroup deeper than the dataplane looks)
// leaves the cgroup on the level it had: the old assignment goes only once the new one is in
// place. Before, the old pins went first and a refusal left the cgroup on no level.
func TestRefusedReassignKeepsTheOldOne(t *testing.T) {
	testutil.RequirePriv(t, "cgroup programs")
	b := programs(t)
	cg := testCgroup(t)
	// 33 levels below the root: deeper than a ceiling may be set (QJ_CEILING_DEPTHS).
	deep := cg
	for i := 0; i < 33; i++ {
		deep = filepath.Join(deep, "d")
		if err := os.Mkdir(deep, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for d := deep; d != cg; d = filepath.Dir(d) {
			os.Remove(d)
		}
	})
	if o := runQjump(t, nil, "assign", "--cgroup", deep, "--level", "6"); o.code() != 0 {
		t.Fatalf("assign: exit %d, stderr %q", o.code(), o.stderr)
	}
	t.Cleanup(func() { Unassign(deep) })
	o := runQjump(t, nil, "assign", "--cgroup", deep, "--level", "4", "--max-level", "4")
	if o.code() == 0 || !strings.Contains(o.stderr, "depth") {
		t.Fatalf("reassign with a ceiling 33 levels down: exit %d, stderr %q; want refused, naming the depth", o.code(), o.stderr)
	}
	expectValues(t, runInCgroup(t, deep, b.goprobe), onLevel("6"))
}

// Assigns of one cgroup at once (an agent and an operator, two configuration-management runs)
// take turns: whichever ends last, the cgroup ends on one of their levels with its pins in
// place. Without turns, one's removal of the old pins could remove the other's new ones, and
// the cgroup ended on no level although both reported success.
func TestConcurrentAssignsLeaveOneAssignment(t *testing.T) {
	testutil.RequirePriv(t, "cgroup programs")
	b := programs(t)
	cg := testCgroup(t)
	t.Cleanup(func() { Unassign(cg) })
	for round := 0; round < 5; round++ {
		var wg sync.WaitGroup
		codes := make([]int, 4)
		for i := range codes {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				codes[i] = runQjump(t, nil, "assign", "--cgroup", cg, "--level", fmt.Sprint(2+i)).code()
			}(i)
		}
		wg.Wait()
		for i, c := range codes {
			if c != 0 {
				t.Fatalf("round %d: assign --level %d exited %d", round, 2+i, c)
			}
		}
		o := runInCgroup(t, cg, b.goprobe)
		if l := o.values["tcp"]; l < "2" || l > "5" {
			t.Fatalf("round %d: after four assigns that all succeeded, the cgroup's sockets are on level %q; want one of 2-5", round, l)
		}
	}
}

// What CMD leaves running in cgroups it made below its own (as a container runtime nests them)
// is ended with the run, and those cgroups removed: before, the run's cgroup looked empty (its
// own cgroup.procs), nothing was killed, its removal failed silently after 2 s, and the process
// ran on with no level once the programs were detached.
func TestRunEndsWhatCMDNestedBelowIt(t *testing.T) {
	testutil.RequirePriv(t, "cgroup mode (loads eBPF into a cgroup)")
	marker := fmt.Sprintf("%d.25", 3000+os.Getpid()%1000) // a sleep nothing else runs
	script := `cg=$(grep -m1 '^0::' /proc/self/cgroup | cut -d: -f3); root=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
mkdir "$root$cg/nested" && sh -c "echo \$\$ > '$root$cg/nested/cgroup.procs' && exec sleep ` + marker + `" &
sleep 0.3`
	programs(t) // built before the clock starts
	start := time.Now()
	o := runQjump(t, nil, "run", "--mode", "cgroup", "--level", "3", "--", "sh", "-c", script)
	// What run says of its cleanup, without its warning that no dataplane is up here.
	said := regexp.MustCompile(`(?m)^qjump: warning: QJump is up on no interface.*\n`).ReplaceAllString(o.stderr, "")
	if o.code() != 0 || strings.Contains(said, "qjump:") {
		t.Fatalf("run: exit %d, stderr %q", o.code(), o.stderr)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("the run took %v: its cleanup waited for a cgroup it could not remove", took)
	}
	if out, _ := exec.Command("pgrep", "-f", "sleep "+marker).Output(); len(out) > 0 {
		exec.Command("pkill", "-f", "sleep "+marker).Run()
		t.Errorf("the process CMD moved into a nested cgroup outlived the run: pid %s", out)
	}
	// The run's cgroup is named by qjump's PID, not this test's.
	root := mustRoot(t)
	if left, _ := filepath.Glob(filepath.Join(root, Slice, fmt.Sprintf("run-%d-*", o.state.Pid()))); len(left) > 0 {
		t.Errorf("cgroups left: %v", left)
		for _, path := range left {
			_ = removeTree(path)
		}
	}
}

// A qjump started with SIGHUP ignored (nohup) leaves CMD ignoring it too: it must not catch the
// signal to forward it, which undid the ignoring, and a hangup ended CMD with status 129.
func TestRunUnderNohupKeepsIgnoringHUP(t *testing.T) {
	testutil.RequirePriv(t, "cgroup mode (loads eBPF into a cgroup)")
	b := programs(t)
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" run --mode cgroup --level 3 -- sh -c "sleep 0.6; echo still here"`, b.qjump)
	cmd.Env = qjumpEnv()
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGHUP)
	err := cmd.Wait()
	if err != nil || !strings.Contains(out.String(), "still here") {
		t.Errorf("a hangup of a qjump run under nohup: %v, output %q; want CMD to finish", err, out.String())
	}
}
