package agent

import (
	"context"
	"fmt"

	"github.com/fsnotify/fsnotify"
)

// cgroupWatch follows the trees of the cgroups that have a ceiling: a container started in a pod
// (a new child cgroup) must get the pod's ceiling before its first packet counts for much. The
// kernel reports mkdir and rmdir in cgroupfs through inotify like on any file system.
type cgroupWatch struct {
	w       *fsnotify.Watcher
	watched map[string]bool
}

func newCgroupWatch(ctx context.Context, changed chan<- struct{}) (*cgroupWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch cgroups: %w", err)
	}
	go func() {
		<-ctx.Done()
		w.Close()
	}()
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) {
					notify(changed)
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				notify(changed) // events lost: look again
			}
		}
	}()
	return &cgroupWatch{w: w, watched: map[string]bool{}}, nil
}

// follow watches every directory of the trees, and forgets the ones that went. It returns how
// many directories it started watching: a new one may have grown children before its watch
// began, so the caller looks again when that is not zero.
func (c *cgroupWatch) follow(trees []string) int {
	want := map[string]bool{}
	for _, root := range trees {
		want[root] = true
		for _, d := range descendants(root) {
			want[d] = true
		}
	}
	added, next := 0, map[string]bool{}
	for d := range want {
		if c.watched[d] {
			next[d] = true
		} else if c.w.Add(d) == nil {
			next[d] = true
			added++
		}
	}
	for d := range c.watched {
		if !want[d] {
			_ = c.w.Remove(d) // gone already, usually: inotify dropped it with the directory
		}
	}
	c.watched = next
	return added
}

// notify wakes the loop without blocking; one pending wake-up is enough.
func notify(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
