package dataplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// ErrNoBPFFS means no bpffs is mounted where pinned state must live.
var ErrNoBPFFS = errors.New("no bpffs")

// BPFFSEnv overrides where QJump looks for bpffs (tests use it to point at a missing one).
const BPFFSEnv = "QJUMP_BPFFS"

const (
	defaultBPFFS = "/sys/fs/bpf"
	// hostBPFFS is the host's bpffs seen through PID 1's root. `ip netns exec` runs its command in
	// a private mount namespace with /sys remounted, which hides /sys/fs/bpf; a bpffs mounted in
	// that namespace would vanish, pins and all, when the command exits.
	hostBPFFS = "/proc/1/root/sys/fs/bpf"
	stateDir  = "qjump"
)

// bpffsRoot finds the bpffs that outlives this process: the one of the host mount namespace. It
// mounts one at /sys/fs/bpf if the host namespace has none.
func bpffsRoot() (string, error) {
	if p := os.Getenv(BPFFSEnv); p != "" {
		if !isBPFFS(p) {
			return "", fmt.Errorf("%w at %s (set by %s): mount one with: mount -t bpf bpf %s", ErrNoBPFFS, p, BPFFSEnv, p)
		}
		return p, nil
	}
	if !sameMountNamespace() {
		if isBPFFS(hostBPFFS) {
			return hostBPFFS, nil
		}
		return "", fmt.Errorf("%w in the host mount namespace (this one is private, e.g. under ip netns exec): "+
			"on the host run: mount -t bpf bpf /sys/fs/bpf", ErrNoBPFFS)
	}
	if isBPFFS(defaultBPFFS) {
		return defaultBPFFS, nil
	}
	if err := os.MkdirAll(defaultBPFFS, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", defaultBPFFS, err)
	}
	if err := unix.Mount("bpf", defaultBPFFS, "bpf", 0, "mode=0700"); err != nil {
		return "", fmt.Errorf("%w at %s and mounting one failed (%v): run as root, or: mount -t bpf bpf %s",
			ErrNoBPFFS, defaultBPFFS, err, defaultBPFFS)
	}
	return defaultBPFFS, nil
}

func isBPFFS(path string) bool {
	var st unix.Statfs_t
	return unix.Statfs(path, &st) == nil && st.Type == unix.BPF_FS_MAGIC
}

// sameMountNamespace reports whether this process sees PID 1's mounts. When that cannot be told
// (no permission to read PID 1's namespace), it assumes so.
func sameMountNamespace() bool {
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	init, err2 := os.Readlink("/proc/1/ns/mnt")
	return err1 != nil || err2 != nil || self == init
}

// netnsID is the inode of this thread's network namespace: interfaces in different namespaces
// may share a name (every testbed host has eth0), so pinned state is keyed by both.
func netnsID() (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/net", &st); err != nil {
		return 0, fmt.Errorf("stat network namespace: %w", err)
	}
	return st.Ino, nil
}

// paths names where a device's state is pinned: <bpffs>/qjump/<netns inode>/<ifname>/.
type paths struct {
	root   string // <bpffs>/qjump
	netns  string // <root>/<netns inode>
	device string // <netns>/<ifname>
}

func pathsFor(dev string) (paths, error) {
	bpffs, err := bpffsRoot()
	if err != nil {
		return paths{}, err
	}
	ns, err := netnsID()
	if err != nil {
		return paths{}, err
	}
	root := filepath.Join(bpffs, stateDir)
	p := paths{root: root, netns: filepath.Join(root, strconv.FormatUint(ns, 10))}
	if dev != "" {
		p.device = filepath.Join(p.netns, dev)
	}
	return p, nil
}

func (p paths) pin(name string) string     { return filepath.Join(p.device, name) }
func (p paths) cgroupCeiling() string      { return filepath.Join(p.root, "cgroup_ceiling") }
func (p paths) forDevice(dev string) paths { p.device = filepath.Join(p.netns, dev); return p }
func (p paths) deviceName() string         { return filepath.Base(p.device) }
func (p paths) exists() bool               { _, err := os.Stat(p.pin(pinMeta)); return err == nil }
