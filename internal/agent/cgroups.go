package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// Placement is a cgroup's level, ceiling and enforcement: apputil.Settings in a comparable form
// that the state file can keep.
type Placement struct {
	Level    int  `json:"level"`
	MaxLevel int  `json:"max_level"` // -1: no ceiling
	Enforce  bool `json:"enforce,omitempty"`
}

const noCeiling = -1

func (p Placement) settings() apputil.Settings {
	s := apputil.Settings{Level: model.Level(p.Level), Enforce: p.Enforce}
	if p.MaxLevel != noCeiling {
		m := model.Level(p.MaxLevel)
		s.MaxLevel = &m
	}
	return s
}

// assignment is what the agent did to one cgroup.
type assignment struct {
	Placement Placement `json:"placement"`
	ID        uint64    `json:"id"` // the cgroup's id when assigned: a re-created cgroup has another
	Source    string    `json:"source"`
}

// cgroups keeps the cgroups of the file and of the pods on their levels.
type cgroups struct {
	root    string                 // the cgroup v2 root the paths are under, for messages (name)
	applied map[string]*assignment // by absolute path
}

// name is a cgroup's path as a message gives it: relative to a private mount's root, whose
// /proc/self/fd/N means nothing to the reader (apputil.CgroupName).
func (c *cgroups) name(path string) string { return apputil.CgroupName(c.root, path) }

// target is one cgroup the agent should keep on a level.
type target struct {
	Placement Placement
	Source    string // "config" or "pod NAMESPACE/NAME", for logs
}

// sync assigns what want adds or changes and unassigns what it drops. A ceiling holds for every
// cgroup below the assigned one (a pod's containers, a service's children): the dataplane looks a
// socket's ancestors up, so nothing here follows the tree. A cgroup already assigned as wanted is left alone: re-assigning
// would detach its programs for a moment.
// sync also returns the wanted cgroups that do not exist on this host (yet): not an error, since
// a cluster file names services that run on some hosts only, and a pod's cgroup appears after
// the pod.
func (c *cgroups) sync(want map[string]target) (absent []string, err error) {
	var errs []error
	for _, path := range sortedKeys(c.applied) {
		if _, ok := want[path]; !ok {
			errs = append(errs, c.unassign(path))
		}
	}
	for _, path := range sortedKeys(want) {
		err := c.assign(path, want[path])
		if errors.Is(err, os.ErrNotExist) {
			absent = append(absent, path)
			continue
		}
		errs = append(errs, err)
	}
	return absent, errors.Join(errs...)
}

func (c *cgroups) assign(path string, t target) error {
	id, err := host.CgroupID(path)
	if err != nil {
		return err // os.ErrNotExist: not there (yet); the next sync retries
	}
	a := c.applied[path]
	if a == nil || a.Placement != t.Placement || a.ID != id || !pinned(id) {
		if err := apputil.Assign(path, t.Placement.settings()); err != nil {
			return fmt.Errorf("assign %s (%s): %w", c.name(path), t.Source, err)
		}
		c.applied[path] = &assignment{Placement: t.Placement, ID: id, Source: t.Source}
	}
	return nil
}

func (c *cgroups) unassign(path string) error {
	a := c.applied[path]
	delete(c.applied, path)
	var err error
	if uerr := apputil.Unassign(path); uerr != nil && !errors.Is(uerr, os.ErrNotExist) {
		// A cgroup that is gone took its programs with it; its pins go at the next assign.
		err = errors.Join(err, uerr)
	}
	if !host.IsCgroup(path) {
		err = errors.Join(err, dataplane.ClearCgroupCeiling(a.ID))
	}
	return err
}

// pinned says whether `qjump assign`'s links for the cgroup are still pinned (someone may have run
// qjump unassign, or bpffs was remounted): only then is adopting an assignment right.
func pinned(id uint64) bool {
	dir, err := host.StateDir()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "cgroups", strconv.FormatUint(id, 10), "sock_create"))
	return err == nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
