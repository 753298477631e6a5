package apputil

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// Slice is the directory, under the cgroup v2 root, that holds the transient cgroups of
// `qjump run --mode cgroup`.
const Slice = "qjump.slice"

// transientCgroup is a cgroup that lives as long as one `qjump run`.
type transientCgroup struct {
	path string
	dir  *os.File // kept open for clone3(CLONE_INTO_CGROUP)
}

func newTransientCgroup(parent string) (*transientCgroup, error) {
	path, err := mkdirRun(parent)
	if err != nil {
		return nil, err
	}
	dir, err := os.Open(path)
	if err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("open cgroup %s: %w", path, err)
	}
	return &transientCgroup{path: path, dir: dir}, nil
}

// mkdirRun makes parent/run-PID-*. A run ending at the same moment may remove an empty parent
// between the two mkdirs, so that is retried.
func mkdirRun(parent string) (string, error) {
	for try := 0; ; try++ {
		if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("create cgroup %s: %w", parent, err)
		}
		sweep(parent)
		path, err := os.MkdirTemp(parent, fmt.Sprintf("run-%d-", os.Getpid()))
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, os.ErrNotExist) || try == 2 {
			return "", fmt.Errorf("create cgroup under %s: %w", parent, err)
		}
	}
}

// remove ends whatever CMD left behind in the cgroup (a daemon it forked: `run` owns the whole
// process tree, so nothing outlives it on the level unseen) and removes the cgroup.
func (c *transientCgroup) remove() error {
	c.dir.Close()
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := os.Remove(c.path)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			_ = os.Remove(filepath.Dir(c.path)) // the slice too, unless another run is in it
			return nil
		}
		if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("remove cgroup %s: %w", c.path, err)
		}
		if populated(c.path) {
			_ = os.WriteFile(filepath.Join(c.path, "cgroup.kill"), []byte("1"), 0)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func populated(path string) bool {
	procs, err := os.ReadFile(filepath.Join(path, "cgroup.procs"))
	return err == nil && len(bytes.TrimSpace(procs)) > 0
}

// sweep removes the empty cgroups of runs whose qjump is gone (it was killed before it could
// clean up): run-PID-* where PID no longer exists. Their ceilings (--max-level) go first: the id
// is lost with the cgroup, and an entry left in the shared map keeps `qjump down` from removing it.
func sweep(parent string) {
	stale, _ := filepath.Glob(filepath.Join(parent, "run-*-*"))
	for _, path := range stale {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(path), "run-%d-", &pid); err != nil || pid <= 0 {
			continue
		}
		if unix.Kill(pid, 0) == unix.ESRCH && !populated(path) {
			_ = setCeiling(path, nil)
			_ = os.Remove(path)
		}
	}
}

// cgroup2ForRun is the cgroup v2 root for `run --mode cgroup`. `ip netns exec` gives its command
// a fresh /sys without the cgroup mounts; cgroup v2 is one hierarchy, so mounting it again on a
// private directory reaches the same cgroups. The mount is undone by the returned function.
func cgroup2ForRun() (root string, unmount func(), err error) {
	if root, err := host.CgroupMount(); err == nil {
		return root, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "qjump-cgroup2-")
	if err != nil {
		return "", nil, fmt.Errorf("%w; mounting one privately failed: %v", host.ErrNoCgroup2, err)
	}
	if err := unix.Mount("cgroup2", dir, "cgroup2", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		os.Remove(dir)
		return "", nil, fmt.Errorf("%w; mounting one privately failed: %w", host.ErrNoCgroup2, err)
	}
	return dir, func() {
		_ = unix.Unmount(dir, unix.MNT_DETACH)
		_ = os.Remove(dir)
	}, nil
}
