package agent

import (
	"context"
	"path/filepath"
	"slices"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// cgroupWatch tells the loop when a cgroup the file names is made or removed, so that a service
// that starts, or restarts (systemd removes its cgroup and makes a new one, with a new id), is
// put on its level at once rather than at the next resync. It watches the directories the
// cgroups are made in; making a cgroup is a mkdir there, which inotify reports.
type cgroupWatch struct {
	w       *fsnotify.Watcher
	changed chan<- struct{}

	mu      sync.Mutex
	paths   []string // the cgroups watched for, absolute
	parents []string // the directories watched
}

// watchCgroups starts a cgroupWatch; it stops when ctx ends.
func watchCgroups(ctx context.Context, changed chan<- struct{}) (*cgroupWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	cw := &cgroupWatch{w: w, changed: changed}
	go cw.run(ctx)
	return cw, nil
}

// set makes paths the cgroups watched for. A directory that does not exist (yet) is not watched:
// the cgroup's absence is looked at every second anyway (syncCgroups).
func (cw *cgroupWatch) set(paths []string) {
	parents := make([]string, 0, len(paths))
	for _, p := range paths {
		if d := filepath.Dir(p); !slices.Contains(parents, d) {
			parents = append(parents, d)
		}
	}
	cw.mu.Lock()
	defer cw.mu.Unlock()
	for _, d := range cw.parents {
		if !slices.Contains(parents, d) {
			_ = cw.w.Remove(d)
		}
	}
	var watched []string
	for _, d := range parents {
		if slices.Contains(cw.parents, d) || cw.w.Add(d) == nil {
			watched = append(watched, d)
		}
	}
	cw.paths, cw.parents = paths, watched
}

func (cw *cgroupWatch) run(ctx context.Context) {
	defer cw.w.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-cw.w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) {
				cw.mu.Lock()
				ours := slices.Contains(cw.paths, filepath.Clean(ev.Name))
				cw.mu.Unlock()
				if ours {
					notify(cw.changed)
				}
			}
		case _, ok := <-cw.w.Errors:
			if !ok {
				return
			}
			notify(cw.changed) // events may have been lost: look again
		}
	}
}
