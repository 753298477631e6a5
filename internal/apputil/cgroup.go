package apputil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/dataplane"
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

// newTransientCgroup makes a cgroup under parent, once the stale ones there are swept; ctx done
// while the sweep waits for the state lock ends it with ErrInterrupted, having made nothing.
func newTransientCgroup(ctx context.Context, parent string) (*transientCgroup, error) {
	for try := 0; ; try++ {
		path, err := mkdirRun(ctx, parent)
		if err != nil {
			return nil, err
		}
		dir, err := os.Open(path)
		if err == nil {
			var kept bool
			if kept, err = lockRun(ctx, dir, path); kept {
				return &transientCgroup{path: path, dir: dir}, nil
			}
			dir.Close()
			if err != nil {
				_ = os.Remove(path)
				return nil, err
			}
			err = os.ErrNotExist
		}
		_ = os.Remove(path)
		if !errors.Is(err, os.ErrNotExist) || try == 2 {
			return nil, fmt.Errorf("open cgroup %s: %w", path, err)
		}
		// Removed before this run could lock it (sweepRunLock): made again.
	}
}

// lockRun takes the run's lock on its cgroup dir, at path, held until the run ends however it
// ends, and says whether the cgroup is still there: a sweep by a run in another pid namespace (a
// container sharing the cgroup hierarchy), where this run's pid names nothing, sees the lock
// taken and spares it (sweepRunLock). It waits for the lock: a sweep that found the new cgroup
// before it was locked holds the lock while it decides, and has removed it when it lets go. That
// can take as long as the sweep waits for QJump's state lock (an up under way), so ctx done ends
// the wait with ErrInterrupted, as a Ctrl-C before CMD starts does everywhere else (review,
// helper-102). A filesystem without locks leaves the pid alone to tell, as before.
func lockRun(ctx context.Context, dir *os.File, path string) (bool, error) {
	for {
		err := unix.Flock(int(dir.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if err != unix.EWOULDBLOCK {
			return true, nil
		}
		select {
		case <-ctx.Done():
			return false, ErrInterrupted
		case <-time.After(10 * time.Millisecond):
		}
	}
	held, err := dir.Stat()
	now, err2 := os.Stat(path)
	return err == nil && err2 == nil && os.SameFile(held, now), nil
}

// mkdirRun makes parent/run-PID-*. A run ending at the same moment may remove an empty parent
// between the two mkdirs, so that is retried.
func mkdirRun(ctx context.Context, parent string) (string, error) {
	for try := 0; ; try++ {
		if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("create cgroup %s: %w", parent, err)
		}
		sweep(ctx, parent)
		if ctx.Err() != nil {
			return "", ErrInterrupted
		}
		path, err := os.MkdirTemp(parent, fmt.Sprintf("run-%d-", os.Getpid()))
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, os.ErrNotExist) || try == 2 {
			return "", fmt.Errorf("create cgroup under %s: %w", parent, err)
		}
	}
}

// end kills whatever CMD left in the cgroup, in cgroups it made below too (a daemon it forked, a
// container runtime's nesting: `run` owns the whole process tree, so nothing outlives it on the
// level unseen, nor off it once the programs are gone), and waits for it to empty.
func (c *transientCgroup) end() error { return endCgroup(c.path) }

// remove removes the emptied cgroup, the cgroups CMD made below it first.
func (c *transientCgroup) remove() error {
	c.dir.Close()
	if err := removeTree(c.path); err != nil {
		return err
	}
	_ = os.Remove(filepath.Dir(c.path)) // the slice too, unless another run is in it
	return nil
}

// endCgroup kills every process of the cgroup at path and below (cgroup.kill) and waits, at most
// 2 s, until none is left.
func endCgroup(path string) error {
	deadline := time.Now().Add(2 * time.Second)
	for populated(path) {
		if err := os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("end the processes of cgroup %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("end the processes of cgroup %s: some are still there after 2 s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// removeTree removes the empty cgroup at path and every cgroup below it, deepest first.
func removeTree(path string) error {
	entries, err := os.ReadDir(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeTree(filepath.Join(path, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove cgroup %s: %w", path, err)
	}
	return nil
}

// populated says whether any process is in the cgroup at path or below it (cgroup.events counts
// the descendants, which the cgroup's own cgroup.procs does not).
func populated(path string) bool {
	events, err := os.ReadFile(filepath.Join(path, "cgroup.events"))
	return err == nil && bytes.Contains(events, []byte("populated 1"))
}

// sweep ends the cgroups of runs whose qjump is gone (it was killed before it could clean up):
// run-PID-* where PID no longer exists and no run holds the cgroup's lock (sweepRunLock). What
// CMD left running there is killed: with qjump gone its programs are detached, and it would run
// on off its level. Their ceilings (--max-level) go next: the id is lost with the cgroup, and an
// entry left in the shared map keeps `qjump down` from removing it. Clearing one waits for the state lock; ctx done meanwhile stops the sweep,
// leaving that cgroup for the next run, so that an interrupt is not held up by an up's lock.
func sweep(ctx context.Context, parent string) {
	stale, _ := filepath.Glob(filepath.Join(parent, "run-*-*"))
	for _, path := range stale {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(path), "run-%d-", &pid); err != nil || pid <= 0 {
			continue
		}
		if unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		lock, lives := sweepRunLock(path)
		if lives {
			continue
		}
		if endCgroup(path) == nil {
			_ = clearCeiling(path, func(id uint64) error { return dataplane.ClearCgroupCeilingContext(ctx, id) })
			if ctx.Err() == nil {
				_ = removeTree(path)
			}
		}
		if lock != nil {
			lock.Close()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// sweepRunLock says whether a run holds the lock of its cgroup at path (lockRun): one in another
// pid namespace, whose pid the sweep's kill(2) does not find, was taken for dead, and its
// programs were killed (review, helper-98). The lock is the kernel's, released with the run
// however it ends. A run of an earlier qjump took none, and is told by its pid alone. When no
// run holds it, the sweep takes it and holds it (the file returned, nil if none could be taken)
// until it has removed the cgroup: a run that has just made the cgroup waits for it, and then
// finds its cgroup gone and makes another (review, helper-100: in between, a sweep removed a
// cgroup that was being locked).
func sweepRunLock(path string) (lock *os.File, lives bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err == unix.EWOULDBLOCK
	}
	return f, false
}

// CgroupRoot is the cgroup v2 root to find and open cgroups under, and the function that
// releases it. `ip netns exec` gives its command a fresh /sys without the cgroup mounts; cgroup v2
// is one hierarchy, so mounting it again reaches the host's cgroups. That mount is a detached one
// (fsopen, fsmount): attached nowhere in any mount namespace and held only by a descriptor of
// this process, reached as /proc/self/fd/N. So there is no mount point to make or remove: it
// used to be a /tmp/qjump-cgroup2-* directory, left behind by every qjump killed or interrupted
// before it could remove it. The kernel frees the mount with the descriptor, by release or when
// the process ends however it ends, and two qjumps at once each have their own.
func CgroupRoot() (root string, release func(), err error) {
	if root, err := host.CgroupMount(); err == nil {
		return root, func() {}, nil
	}
	fd, err := detachedCgroupMount()
	if err != nil {
		return "", nil, fmt.Errorf("%w; mounting one privately failed: %w", host.ErrNoCgroup2, err)
	}
	return fmt.Sprintf("/proc/self/fd/%d", fd), func() { _ = unix.Close(fd) }, nil
}

// detachedCgroupMount mounts the cgroup v2 hierarchy without attaching it anywhere and returns
// the mount's descriptor (close-on-exec: CMD does not inherit it).
func detachedCgroupMount() (int, error) {
	fsfd, err := unix.Fsopen("cgroup2", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen cgroup2: %w", err)
	}
	defer unix.Close(fsfd)
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return -1, fmt.Errorf("create cgroup2 superblock: %w", err)
	}
	fd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsmount cgroup2: %w", err)
	}
	return fd, nil
}
