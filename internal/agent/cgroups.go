package agent

import (
	"errors"
	"fmt"
	"io/fs"
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
	// Below holds the ceilings set on the cgroups under it, by id. The dataplane looks a packet's
	// ceiling up by the socket's own cgroup only, and a pod's or a service's sockets live in child
	// cgroups (one per container): each descendant gets the ceiling of its own.
	Below map[uint64]string `json:"below,omitempty"`
}

// cgroups keeps the cgroups of the file and of the pods on their levels.
type cgroups struct {
	applied map[string]*assignment // by absolute path
}

// target is one cgroup the agent should keep on a level.
type target struct {
	Placement Placement
	Source    string // "config" or "pod NAMESPACE/NAME", for logs
}

// sync assigns what want adds or changes, unassigns what it drops and refreshes the ceilings
// below every assigned cgroup. A cgroup already assigned as wanted is left alone: re-assigning
// would detach its programs for a moment.
func (c *cgroups) sync(want map[string]target) error {
	var errs []error
	for _, path := range sortedKeys(c.applied) {
		if _, ok := want[path]; !ok {
			errs = append(errs, c.unassign(path))
		}
	}
	for _, path := range sortedKeys(want) {
		errs = append(errs, c.assign(path, want[path]))
	}
	return errors.Join(errs...)
}

func (c *cgroups) assign(path string, t target) error {
	id, err := host.CgroupID(path)
	if err != nil {
		return err // not there (yet): a pod's cgroup appears after the pod; the next sync retries
	}
	a := c.applied[path]
	if a == nil || a.Placement != t.Placement || a.ID != id || !pinned(id) {
		if err := apputil.Assign(path, t.Placement.settings()); err != nil {
			return fmt.Errorf("assign %s (%s): %w", path, t.Source, err)
		}
		// A new ceiling, or a new cgroup: every descendant gets it anew.
		old := a
		a = &assignment{Placement: t.Placement, ID: id, Source: t.Source, Below: map[uint64]string{}}
		if old != nil && old.ID == id {
			a.Below = old.Below
		} else if err := clearBelow(old); err != nil {
			return err // the ceilings of a removed cgroup's children
		}
		c.applied[path] = a
		if t.Placement.MaxLevel == noCeiling {
			clearBelow(a)
		}
		for below := range a.Below {
			a.Below[below] = "" // forces refreshBelow to set the new ceiling
		}
	}
	return refreshBelow(path, a)
}

func (c *cgroups) unassign(path string) error {
	a := c.applied[path]
	delete(c.applied, path)
	err := clearBelow(a)
	if uerr := apputil.Unassign(path); uerr != nil && !errors.Is(uerr, os.ErrNotExist) {
		// A cgroup that is gone took its programs with it; its pins go at the next assign.
		err = errors.Join(err, uerr)
	}
	if !host.IsCgroup(path) {
		err = errors.Join(err, dataplane.ClearCgroupCeiling(a.ID))
	}
	return err
}

// refreshBelow gives every cgroup below path the ceiling of path and clears the ceilings of those
// that have gone.
func refreshBelow(path string, a *assignment) error {
	if a.Placement.MaxLevel == noCeiling {
		return nil
	}
	seen := map[uint64]bool{}
	var errs []error
	for _, dir := range descendants(path) {
		id, err := host.CgroupID(dir)
		if err != nil {
			continue // removed while walking
		}
		seen[id] = true
		if a.Below[id] == dir {
			continue
		}
		if err := dataplane.SetCgroupCeiling(dir, model.Level(a.Placement.MaxLevel)); err != nil {
			errs = append(errs, err)
			continue
		}
		a.Below[id] = dir
	}
	for id := range a.Below {
		if !seen[id] {
			errs = append(errs, dataplane.ClearCgroupCeiling(id))
			delete(a.Below, id)
		}
	}
	return errors.Join(errs...)
}

func clearBelow(a *assignment) error {
	if a == nil {
		return nil
	}
	var errs []error
	for id := range a.Below {
		errs = append(errs, dataplane.ClearCgroupCeiling(id))
		delete(a.Below, id)
	}
	return errors.Join(errs...)
}

// descendants lists every cgroup directory below path, not path itself.
func descendants(path string) []string {
	var out []string
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a cgroup removed while walking
		}
		if d.IsDir() && p != path {
			out = append(out, p)
		}
		return nil
	})
	return out
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

// trees lists the assigned cgroups whose descendants need a ceiling: what the cgroup watch follows.
func (c *cgroups) trees() []string {
	var out []string
	for _, path := range sortedKeys(c.applied) {
		if c.applied[path].Placement.MaxLevel != noCeiling {
			out = append(out, path)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
