package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNoBPFFS means no bpffs is mounted where pinned state must live.
var ErrNoBPFFS = errors.New("no bpffs")

// BPFFSEnv overrides where QJump looks for bpffs (tests use it to point at a missing one).
const BPFFSEnv = "QJUMP_BPFFS"

// DefaultBPFFS is where bpffs is mounted on a host that has one.
const DefaultBPFFS = "/sys/fs/bpf"

// stateDirName is the directory of the bpffs under which QJump pins everything.
const stateDirName = "qjump"

// StateDir is <bpffs>/qjump, the root under which QJump pins everything (on the host's bpffs,
// also under `ip netns exec`; see BPFFS). It mounts bpffs where BPFFS would. Whoever writes there
// takes the dataplane's state lock first, which refuses a directory that is not root's alone.
func StateDir() (string, error) {
	bpffs, err := BPFFS()
	if err != nil {
		return "", err
	}
	return StateDirIn(bpffs), nil
}

// StateDirIn is QJump's state directory on the bpffs mounted at bpffs.
func StateDirIn(bpffs string) string { return filepath.Join(bpffs, stateDirName) }

// BPFFS finds the bpffs that outlives this process, mounting one at /sys/fs/bpf in the host
// mount namespace when there is none, as systemd does at boot: here if this namespace is the
// host's, or through nsenter if it is a private one (ip netns exec; findHostBPFFS says which).
func BPFFS() (string, error) {
	p, err := FindBPFFS()
	if errors.Is(err, ErrBPFFSUnmounted) {
		return mountBPFFS()
	}
	var host *HostUnmountedError
	if errors.As(err, &host) {
		if err := mountHostBPFFS(host.Pid); err != nil {
			return "", err
		}
		return FindBPFFS()
	}
	return p, err
}

// ErrBPFFSUnmounted is FindBPFFS's answer when no bpffs is mounted and BPFFS would mount one: in
// the host mount namespace, with nothing at /sys/fs/bpf. It wraps ErrNoBPFFS.
var ErrBPFFSUnmounted = fmt.Errorf("%w at %s", ErrNoBPFFS, DefaultBPFFS)

// ErrHostBPFFSUnmounted is FindBPFFS's answer (as a *HostUnmountedError) in a private mount
// namespace (ip netns exec) when the host's has no bpffs either and BPFFS would mount one there.
// It wraps ErrNoBPFFS.
var ErrHostBPFFSUnmounted = fmt.Errorf("%w in the host mount namespace (this one is private, e.g. under ip netns exec): "+
	"on the host run: mount -t bpf -o mode=0700 bpf %s", ErrNoBPFFS, DefaultBPFFS)

// FindBPFFS finds the bpffs that outlives this process, without mounting one.
//
// `ip netns exec` runs its command in a private mount namespace with /sys remounted, which hides
// /sys/fs/bpf; a bpffs mounted in that namespace would vanish, pins and all, when the command
// exits. There the host's bpffs is still reachable through the root of an ancestor process that
// lives in the original mount namespace (the shell that ran ip): /proc/<pid>/root/sys/fs/bpf.
// PID 1 is tried last because some inits refuse /proc/1/root even to root.
func FindBPFFS() (string, error) {
	if p := os.Getenv(BPFFSEnv); p != "" {
		if !isBPFFS(p) {
			return "", fmt.Errorf("%w at %s (set by %s): mount one with: mount -t bpf -o mode=0700 bpf %s", ErrNoBPFFS, p, BPFFSEnv, p)
		}
		return p, nil
	}
	if isBPFFS(DefaultBPFFS) {
		return DefaultBPFFS, nil
	}
	return findHostBPFFS(mountNamespace(os.Getpid()), ancestors(), mountNamespace, isBPFFS)
}

// findHostBPFFS looks for the host's bpffs through the roots of the ancestors (ending with PID 1)
// in another mount namespace than self, nsOf telling a process's. With none found it answers
// ErrBPFFSUnmounted, which lets BPFFS mount one here, when this mount namespace is PID 1's, the
// host's; and a *HostUnmountedError, which lets BPFFS mount one in the namespace of the outermost
// ancestor elsewhere (PID 1 when its namespace can be read, which some inits refuse even to root),
// when this one is private. Where PID 1's cannot be read and no ancestor is elsewhere, this may
// be a private namespace whose ancestors are gone (a daemon started under ip netns exec and
// reparented to PID 1): a bpffs mounted there would hide the host's pins, and up would put a
// second limiter on an interface that has one, so it mounts nothing.
func findHostBPFFS(self string, ancestors []int, nsOf func(pid int) string, isBPFFS func(path string) bool) (string, error) {
	outer := 0 // the outermost ancestor in another mount namespace
	for _, pid := range ancestors {
		ns := nsOf(pid)
		if ns == "" || ns == self {
			continue
		}
		outer = pid
		if p := fmt.Sprintf("/proc/%d/root%s", pid, DefaultBPFFS); isBPFFS(p) {
			return p, nil
		}
	}
	switch {
	case nsOf(1) != "" && nsOf(1) == self:
		return "", ErrBPFFSUnmounted
	case outer != 0:
		return "", &HostUnmountedError{Pid: outer}
	}
	return "", fmt.Errorf("%w at %s, and whether this mount namespace is the host's cannot be told (/proc/1/ns/mnt "+
		"is unreadable), so none is mounted here, where it might hide the host's pins: on the host run: "+
		"mount -t bpf -o mode=0700 bpf %s, or set %s to the host's bpffs", ErrNoBPFFS, DefaultBPFFS, DefaultBPFFS, BPFFSEnv)
}

// HostUnmountedError is ErrHostBPFFSUnmounted with the process whose mount namespace is taken
// for the host's, where BPFFS mounts one.
type HostUnmountedError struct{ Pid int }

func (e *HostUnmountedError) Error() string { return ErrHostBPFFSUnmounted.Error() }
func (e *HostUnmountedError) Unwrap() error { return ErrHostBPFFSUnmounted }

func mountBPFFS() (string, error) {
	if err := os.MkdirAll(DefaultBPFFS, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", DefaultBPFFS, err)
	}
	if err := unix.Mount("bpf", DefaultBPFFS, "bpf", 0, "mode=0700"); err != nil {
		return "", fmt.Errorf("%w at %s and mounting one failed (%v): run as root, or: mount -t bpf -o mode=0700 bpf %s",
			ErrNoBPFFS, DefaultBPFFS, err, DefaultBPFFS)
	}
	return DefaultBPFFS, nil
}

// mountHostBPFFS mounts a bpffs at /sys/fs/bpf in pid's mount namespace. A Go process cannot enter
// another mount namespace itself (setns refuses a process with more than one thread), so nsenter,
// a single-threaded program of util-linux, which every Debian has, does it.
func mountHostBPFFS(pid int) error {
	out, err := exec.Command("nsenter", "--target", strconv.Itoa(pid), "--mount", "--",
		"mount", "-t", "bpf", "-o", "mode=0700", "bpf", DefaultBPFFS).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w in the host mount namespace, and mounting one there failed (nsenter: %v: %s): "+
			"on the host run: mount -t bpf -o mode=0700 bpf %s", ErrNoBPFFS, err, strings.TrimSpace(string(out)), DefaultBPFFS)
	}
	return nil
}

func isBPFFS(path string) bool {
	var st unix.Statfs_t
	return unix.Statfs(path, &st) == nil && st.Type == unix.BPF_FS_MAGIC
}

func mountNamespace(pid int) string {
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid))
	if err != nil {
		return ""
	}
	return ns
}

// ancestors lists the parent, grandparent, ... of this process, ending with PID 1.
func ancestors() []int {
	var out []int
	for pid := os.Getppid(); pid > 1 && len(out) < 64; pid = parentOf(pid) {
		out = append(out, pid)
	}
	return append(out, 1)
}

func parentOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name in parentheses may hold spaces; the fields after it are plain.
	i := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[i+1:]))
	if i < 0 || len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}
