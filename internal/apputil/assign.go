package apputil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/cilium/ebpf/link"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// pinRoot is where `qjump assign` pins the links that keep a cgroup on its level after qjump
// exits: <bpffs>/qjump/cgroups/<cgroup id>/{sock_create,sock_ops,setsockopt}, beside the
// dataplane's state.
func pinRoot() (string, error) {
	dir, err := host.StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "cgroups"), nil
}

// ErrNotAssigned is returned by Unassign for a cgroup that `qjump assign` did not set up.
var ErrNotAssigned = errors.New("cgroup has no qjump assignment")

// errNotCgroup is returned for a path that is not a cgroup v2 directory.
var errNotCgroup = errors.New("not a cgroup v2 directory")

// ResolveCgroup turns PATH into a cgroup v2 directory under root (CgroupRoot): relative to the
// root (e.g. system.slice/memcached.service), or absolute. An absolute path under the host's
// mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid system) names the same cgroup
// under a root mounted privately.
func ResolveCgroup(root, given string) (string, error) {
	path := CgroupPath(root, given)
	// host.IsCgroup refuses a file of the hierarchy (cgroup.procs), which failed later as a bad
	// descriptor for the link.
	if !host.IsCgroup(path) {
		return "", fmt.Errorf("%w: %s", errNotCgroup, userPath(root, path, given))
	}
	return path, nil
}

// CgroupPath is PATH, as `qjump assign --cgroup` and the agent's file give it, as a clean path
// under root (CgroupRoot), whether or not it exists: relative to the root, or absolute, an
// absolute path under the host's mount naming the same cgroup under a root mounted privately
// (a pod's --cgroup-root, ip netns exec). One reading for both: the agent used to take an absolute
// path as it was, which under a private root named no cgroup, so that its rule never held.
func CgroupPath(root, path string) string {
	if filepath.IsAbs(path) {
		return underRoot(root, filepath.Clean(path))
	}
	return filepath.Join(root, path)
}

// InCgroupRoot says whether path (as CgroupPath gives it) is a cgroup below root, not root itself
// nor outside it: a path that climbs out (../../tmp) names no cgroup of the hierarchy, and the
// root's programs would run for every process of the host.
func InCgroupRoot(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}

// userPath is path under root, as the user gave it (given), as the user can find it: the path
// under the host's mount, or relative to the cgroup v2 root under a private one, whose directory
// is gone when qjump exits. A relative path that climbs out of a private root is said as given:
// its path (/proc/self/etc for ../../etc) is one of qjump's descriptors, not the user's.
func userPath(root, path, given string) string {
	// Under the host's mount, or not under root, name is path: absolute, so not local.
	switch name := CgroupName(root, path); {
	case name == ".":
		return "the cgroup v2 root"
	case filepath.IsLocal(name):
		return name + " under the cgroup v2 root"
	case !filepath.IsAbs(given) && !slices.Contains(host.CgroupMounts, root):
		return given + ", outside the cgroup v2 root"
	}
	return path
}

// underRoot is the absolute path as seen under root: as given when root is where the host mounts
// cgroup v2, or when path is not under such a place.
func underRoot(root, path string) string {
	if slices.Contains(host.CgroupMounts, root) {
		return path
	}
	// The deeper mount first: a path under /sys/fs/cgroup/unified is under /sys/fs/cgroup too.
	for _, mount := range slices.Backward(host.CgroupMounts) {
		if rel, err := filepath.Rel(mount, path); err == nil && filepath.IsLocal(rel) {
			return filepath.Join(root, rel)
		}
	}
	return path
}

// CgroupName is the cgroup at path under root (CgroupRoot) as the user knows it: the path itself
// under the host's mount, and relative to the cgroup v2 root under a private one, whose directory
// means nothing outside this process.
func CgroupName(root, path string) string {
	if slices.Contains(host.CgroupMounts, root) {
		return path
	}
	if rel, err := filepath.Rel(root, path); err == nil {
		return rel
	}
	return path
}

func pinDir(path string) (string, error) {
	id, err := host.CgroupID(path)
	if err != nil {
		return "", err
	}
	root, err := pinRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, strconv.FormatUint(id, 10)), nil
}

// AssignedAncestors are the cgroups above the one at path, below root, that qjump assign has put
// on a level (those with pins), nearest first: their programs run after path's own on its new
// sockets, the root-most last, so the last one's level is what they keep.
func AssignedAncestors(root, path string) []string {
	var out []string
	for d := filepath.Dir(filepath.Clean(path)); InCgroupRoot(root, d); d = filepath.Dir(d) {
		if assigned(d) {
			out = append(out, d)
		}
	}
	return out
}

// AssignedDescendants are the cgroups below the one at path that qjump assign has put on a level
// (those with pins), in walk order: path's programs run after theirs on their new sockets, so
// path's level overrides theirs.
func AssignedDescendants(path string) []string {
	var out []string
	_ = filepath.WalkDir(path, func(d string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() && d != path && assigned(d) {
			out = append(out, d)
		}
		return nil
	})
	return out
}

// assigned says whether qjump assign has put the cgroup at path on a level: it has pins.
func assigned(path string) bool {
	dir, err := pinDir(path)
	if err != nil {
		return false
	}
	_, err = os.Stat(dir)
	return err == nil
}

// Assign puts every IP socket made from now on in the cgroup at path on s.Level, with pinned
// links so that it lasts after qjump exits (until Unassign, or until the cgroup is removed).
// Assigning a cgroup again replaces its settings.
func Assign(path string, s Settings) error {
	_, err := AssignReplacing(path, s)
	return err
}

// AssignReplacing is Assign, returning the ceiling the cgroup had before (nil for none): an assign
// without --max-level removes it, and the tenant it kept off the higher levels should not lose it
// unsaid.
func AssignReplacing(path string, s Settings) (was *model.Level, err error) {
	dir, err := pinDir(path)
	if err != nil {
		return nil, err
	}
	// Under QJump's state lock: two assigns of one cgroup at once would otherwise remove each
	// other's new pins, and both report success for a cgroup left on no level.
	err = dataplane.WithStateLock(func(l dataplane.Locked) error {
		was, err = assign(l, path, dir, s)
		return err
	})
	return was, err
}

// assign is Assign under the state lock, which l holds; it returns the ceiling it replaced. Its
// errors do not name path, which under a private root is one of qjump's descriptors
// (/proc/self/fd/N/...): the caller names the cgroup as the user knows it.
func assign(l dataplane.Locked, path, dir string, s Settings) (*model.Level, error) {
	sweepOrphans(l, filepath.Dir(dir))
	was, err := ceilingNow(l, path)
	if err != nil {
		return nil, err
	}
	// What can refuse does so while the old assignment is still in place: the new programs are
	// attached (held by this process only, they detach if it fails or exits) and the ceiling set
	// before the old pins go. For that moment both sets of programs run on new sockets.
	a, err := attach(path, s)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if err := setCeilingLocked(l, path, s.MaxLevel); err != nil {
		return nil, err
	}
	if err := unpinAll(dir); err != nil && !errors.Is(err, ErrNotAssigned) {
		return nil, err
	}
	if err := a.pin(dir); err != nil {
		_ = unpinAll(dir)
		_ = setCeilingLocked(l, path, nil)
		return nil, err
	}
	return was, nil
}

// ceilingNow is the ceiling the cgroup at path has now, nil for none.
func ceilingNow(l dataplane.Locked, path string) (*model.Level, error) {
	id, err := host.CgroupID(path)
	if err != nil {
		return nil, err
	}
	max, ok, err := l.CgroupCeiling(id)
	if err != nil || !ok {
		return nil, err
	}
	return &max, nil
}

// Unassign removes everything Assign made for the cgroup at path: its links detach as their last
// reference, the pin, goes; and its ceiling. ErrNotAssigned, alone, when it had neither: a caller
// may take that for success, as it must not an error beside it (review, helper-75: a ceiling that
// could not be cleared was joined to ErrNotAssigned, and the CLI said "nothing to do").
func Unassign(path string) error {
	dir, err := pinDir(path)
	if err != nil {
		return err
	}
	return dataplane.WithStateLock(func(l dataplane.Locked) error {
		ceiling, err := ceilingNow(l, path)
		if err != nil {
			return fmt.Errorf("unassign cgroup %s: %w", path, err)
		}
		pins := unpinAll(dir)
		_ = os.Remove(filepath.Dir(dir)) // the pin root too, once no cgroup is assigned
		if errors.Is(pins, ErrNotAssigned) && ceiling == nil {
			return ErrNotAssigned
		}
		if errors.Is(pins, ErrNotAssigned) {
			pins = nil // a ceiling without pins (pins removed by hand): clearing it is the unassign
		}
		if err := errors.Join(pins, setCeilingLocked(l, path, nil)); err != nil {
			return fmt.Errorf("unassign cgroup %s: %w", path, err)
		}
		return nil
	})
}

func unpinAll(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return ErrNotAssigned
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		l, err := link.LoadPinnedLink(filepath.Join(dir, e.Name()), nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("load pinned link %s: %w", e.Name(), err))
			continue
		}
		errs = append(errs, l.Unpin(), l.Close())
	}
	if err := os.Remove(dir); err != nil {
		errs = append(errs, fmt.Errorf("remove %s: %w", dir, err))
	}
	return errors.Join(errs...)
}

// sweepOrphans removes the pins and ceilings of assigned cgroups that have since been removed:
// their links are defunct (the kernel reports cgroup id 0 for them) and nothing could unassign
// them by path any more.
func sweepOrphans(locked dataplane.Locked, root string) (swept int) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		id, err := strconv.ParseUint(e.Name(), 10, 64)
		if err != nil {
			continue
		}
		dir := filepath.Join(root, e.Name())
		l, err := link.LoadPinnedLink(filepath.Join(dir, "sock_create"), nil)
		if err != nil {
			continue
		}
		info, err := l.Info()
		l.Close()
		if err != nil || info.Cgroup() == nil || info.Cgroup().CgroupId != 0 {
			continue
		}
		_ = unpinAll(dir)
		_ = locked.ClearCgroupCeiling(id)
		swept++
	}
	return swept
}

// SweepRemoved removes what assign left of cgroups removed since, as the next assign does, and
// says of how many: unassign of a path that is no longer there cannot find its pins, which are
// kept by cgroup id. A removed cgroup whose sockets the kernel still holds it for is not released,
// so not swept, until they close.
func SweepRemoved() (int, error) {
	root, err := pinRoot()
	if err != nil {
		return 0, err
	}
	swept := 0
	err = dataplane.WithStateLock(func(l dataplane.Locked) error {
		swept = sweepOrphans(l, root)
		_ = os.Remove(root) // once no cgroup is assigned, as Unassign does
		return nil
	})
	return swept, err
}
