package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ErrNoBPFFS means no bpffs is mounted where pinned state must live.
var ErrNoBPFFS = errors.New("no bpffs")

// BPFFSEnv overrides where QJump looks for bpffs (tests use it to point at a missing one).
const BPFFSEnv = "QJUMP_BPFFS"

// DefaultBPFFS is where bpffs is mounted on a host that has one.
const DefaultBPFFS = "/sys/fs/bpf"

// mountOptions are the options of a bpffs qjump mounts, and that it tells users to mount: root's
// alone (the kernel's default, 1777, lets any user make QJump's state directory first).
const mountOptions = "mode=0700"

// mountCommand is how a message tells the user to mount the bpffs qjump did not.
const mountCommand = "mount -t bpf -o " + mountOptions + " bpf " + DefaultBPFFS

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
	if !errors.Is(err, ErrBPFFSUnmounted) && !errors.Is(err, ErrHostBPFFSUnmounted) {
		return p, err
	}
	// Two qjumps that both found none would mount two, the second hiding the first's pins: the
	// first to take the lock mounts, the other finds its mount.
	unlock, err := lockMount()
	if err != nil {
		return "", err
	}
	defer unlock()
	p, err = FindBPFFS()
	if errors.Is(err, ErrBPFFSUnmounted) {
		return mountBPFFS()
	}
	var host *HostUnmountedError
	if !errors.As(err, &host) {
		return p, err
	}
	if err := mountHostBPFFS(host); err != nil {
		return "", err
	}
	if p, err = FindBPFFS(); err != nil {
		return "", fmt.Errorf("%w here: mounted one at %s in the host mount namespace (that of pid %d), but it cannot be "+
			"reached from this one (%v)", ErrNoBPFFS, DefaultBPFFS, host.Pid, err)
	}
	return p, nil
}

// mountLockPath serialises mounting bpffs. /run is root's, and `ip netns exec` shares it. A
// variable for tests.
var mountLockPath = "/run/qjump-bpffs.lock"

// mountLockWait bounds the wait for the mount lock (a variable for tests). Its holder only looks
// for a bpffs and mounts one, nsenter included, in well under a second: one that holds it longer
// is stuck (a mount that hangs) or no qjump, and every qjump on a host without a bpffs would
// otherwise hang behind it.
var mountLockWait = 5 * time.Second

// lockMount takes the lock around looking for a bpffs and mounting one, waiting mountLockWait at
// most for another holder.
func lockMount() (unlock func(), err error) {
	f, err := os.OpenFile(mountLockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w, and none can be mounted from here (its lock: %v): run as root, or on the host: %s",
			ErrNoBPFFS, err, mountCommand)
	}
	if err := FlockWithin(f, mountLockWait); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, mountLockHeld()
		}
		return nil, fmt.Errorf("lock %s: %w", mountLockPath, err)
	}
	return func() { f.Close() }, nil
}

// mountLockHeld is the refusal when another process held the mount lock for all of mountLockWait,
// naming it where /proc/locks does.
func mountLockHeld() error {
	holder := fmt.Sprintf("another process (fuser -v %s names it)", mountLockPath)
	if pid, ok := LockHolder(mountLockPath); ok {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		holder = fmt.Sprintf("pid %d (%s)", pid, strings.TrimSpace(string(comm)))
	}
	return fmt.Errorf("%w found, and %s has held %s, the lock qjump takes to mount one, for more than %s (a mount takes "+
		"well under a second): stop it if it is stuck, or on the host run: %s", ErrNoBPFFS, holder, mountLockPath, mountLockWait, mountCommand)
}

// ErrBPFFSUnmounted is FindBPFFS's answer when no bpffs is mounted and BPFFS would mount one: in
// the host mount namespace, with nothing at /sys/fs/bpf. It wraps ErrNoBPFFS.
var ErrBPFFSUnmounted = fmt.Errorf("%w at %s", ErrNoBPFFS, DefaultBPFFS)

// ErrHostBPFFSUnmounted is FindBPFFS's answer (as a *HostUnmountedError) in a private mount
// namespace (ip netns exec) when the host's has no bpffs either and BPFFS would mount one there.
// It wraps ErrNoBPFFS.
var ErrHostBPFFSUnmounted = fmt.Errorf("%w in the host mount namespace (this one is private, e.g. under ip netns exec): "+
	"on the host run: %s", ErrNoBPFFS, mountCommand)

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
			return "", fmt.Errorf("%w at %s (set by %s): mount one with: mount -t bpf -o %s bpf %s", ErrNoBPFFS, p, BPFFSEnv, mountOptions, p)
		}
		return p, nil
	}
	if isBPFFS(DefaultBPFFS) {
		return DefaultBPFFS, nil
	}
	return findHostBPFFS(mountNamespace(os.Getpid()), hostNamespace(), ancestors(), mountNamespace, isBPFFS)
}

// findHostBPFFS looks for the host's bpffs through the roots of the ancestors (ending with PID 1)
// in the host's mount namespace, host (hostNamespace; where it cannot be told, in any other than
// self), nsOf telling a process's.
// With none found it answers ErrBPFFSUnmounted, which lets BPFFS mount one here, when self is
// the host's; and a *HostUnmountedError naming an ancestor in the host's, which lets BPFFS mount
// one there, when self is another (ip netns exec's). An ancestor merely elsewhere is not taken
// for the host: it may be private too (a shell in one), and a bpffs mounted there would vanish
// with it and hide the host's pins from the next up, which would put a second limiter on the
// interface. So where the host's namespace cannot be told, or no ancestor is in it, nothing is
// mounted.
func findHostBPFFS(self, host string, ancestors []int, nsOf func(pid int) string, isBPFFS func(path string) bool) (string, error) {
	for _, pid := range ancestors {
		ns := nsOf(pid)
		if ns == "" || ns == self || (host != "" && ns != host) {
			continue // where the host's is known, only a bpffs in it outlives every process
		}
		if p := fmt.Sprintf("/proc/%d/root%s", pid, DefaultBPFFS); isBPFFS(p) {
			return p, nil
		}
	}
	switch {
	case host == "":
		return "", hostUnknownError()
	case self == host:
		return "", ErrBPFFSUnmounted
	}
	for _, pid := range ancestors {
		if nsOf(pid) == host {
			return "", &HostUnmountedError{Pid: pid, Namespace: host}
		}
	}
	return "", fmt.Errorf("%w in the host mount namespace, and this one is private (e.g. under ip netns exec) with no "+
		"ancestor in the host's to mount one through: on the host run: %s", ErrNoBPFFS, mountCommand)
}

// hostUnknownError is findHostBPFFS's refusal where the host's mount namespace cannot be told.
// Root reads PID 1's or kthreadd's; a user who is not cannot, and is told that is the cause.
func hostUnknownError() error {
	err := fmt.Errorf("%w at %s, and whether this mount namespace is the host's cannot be told (neither "+
		"/proc/1/ns/mnt nor kthreadd's can be read), so none is mounted, where it might hide the host's pins: on the "+
		"host run: %s, or set %s to the host's bpffs", ErrNoBPFFS, DefaultBPFFS, mountCommand, BPFFSEnv)
	if uid := euid(); uid != 0 {
		return fmt.Errorf("%w; run qjump as root (this is uid %d)", err, uid)
	}
	return err
}

// euid is the effective uid of this process: a test's seam, to see what a user who is not root
// is told without being one.
var euid = os.Geteuid

// hostNamespace is the host's mount namespace: PID 1's, or where an init hides its own even from
// root (this project's VMs'), kthreadd's, a kernel thread in the initial mount namespace (PID 2,
// a kernel thread with no parent: no process can make itself one); "" when neither can be read.
func hostNamespace() string {
	if ns := mountNamespace(1); ns != "" {
		return ns
	}
	if !isKthreadd(2) {
		return ""
	}
	return mountNamespace(2)
}

// HostUnmountedError is ErrHostBPFFSUnmounted with an ancestor in the host's mount namespace
// (Namespace), through which BPFFS mounts one.
type HostUnmountedError struct {
	Pid       int
	Namespace string
}

func (e *HostUnmountedError) Error() string { return ErrHostBPFFSUnmounted.Error() }
func (e *HostUnmountedError) Unwrap() error { return ErrHostBPFFSUnmounted }

func mountBPFFS() (string, error) {
	if err := os.MkdirAll(DefaultBPFFS, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", DefaultBPFFS, err)
	}
	if err := unix.Mount("bpf", DefaultBPFFS, "bpf", 0, mountOptions); err != nil {
		return "", fmt.Errorf("%w at %s and mounting one failed (%v): run as root, or: %s", ErrNoBPFFS, DefaultBPFFS, err, mountCommand)
	}
	return DefaultBPFFS, nil
}

// mountHostBPFFS mounts a bpffs at /sys/fs/bpf in the host's mount namespace, entered through
// the ancestor host names. A Go process cannot enter another mount namespace itself (setns
// refuses a process with more than one thread), so nsenter, a single-threaded program of
// util-linux, does it, given the ancestor's namespace and root as open files: checked to be the
// host's once open, so that a pid reused meanwhile cannot send the mount elsewhere, and the root
// the one FindBPFFS then looks through.
func mountHostBPFFS(host *HostUnmountedError) error {
	failed := func(err error) error {
		return fmt.Errorf("%w in the host mount namespace, and mounting one there failed (%v): on the host run: %s",
			ErrNoBPFFS, err, mountCommand)
	}
	started := statField(host.Pid, statStartTime)
	root, err := os.Open(fmt.Sprintf("/proc/%d/root", host.Pid))
	if err != nil {
		return failed(err)
	}
	defer root.Close()
	ns, err := os.Open(fmt.Sprintf("/proc/%d/ns/mnt", host.Pid))
	if err != nil {
		return failed(err)
	}
	defer ns.Close()
	// Both opened from the process found, in the host's namespace: not from another given its pid
	// since (its start time would differ) or one that left the namespace.
	if got, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", ns.Fd())); got != host.Namespace ||
		started == "" || statField(host.Pid, statStartTime) != started {
		return failed(fmt.Errorf("pid %d is no longer the process in the host's mount namespace it was", host.Pid))
	}
	cmd := exec.Command("nsenter", "--mount=/proc/self/fd/3", "--root=/proc/self/fd/4", "--",
		"mount", "-t", "bpf", "-o", mountOptions, "bpf", DefaultBPFFS)
	cmd.ExtraFiles = []*os.File{ns, root}
	out, err := cmd.CombinedOutput()
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return failed(fmt.Errorf("nsenter, of util-linux, is not installed"))
	case err != nil:
		return failed(fmt.Errorf("nsenter: %v: %s", err, strings.TrimSpace(string(out))))
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
	ppid, _ := strconv.Atoi(statField(pid, statPPID))
	return ppid
}

// Fields of /proc/PID/stat (proc(5)), numbered from 1.
const (
	statPPID      = 4
	statFlags     = 9
	statStartTime = 22
)

// statField is field n of /proc/pid/stat, "" when it cannot be read.
func statField(pid, n int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) in parentheses may hold spaces; the fields after it are plain.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(data[i+1:]))
	if n < 3 || n-3 >= len(fields) {
		return ""
	}
	return fields[n-3]
}

// pfKthread is the kernel's PF_KTHREAD, set in a kernel thread's flags: no process can set it.
const pfKthread = 0x00200000

// isKthreadd says whether pid is the kernel's kthreadd: a kernel thread with no parent.
func isKthreadd(pid int) bool {
	flags, err := strconv.ParseUint(statField(pid, statFlags), 10, 64)
	return err == nil && flags&pfKthread != 0 && parentOf(pid) == 0
}
