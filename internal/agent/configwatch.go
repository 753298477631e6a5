package agent

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// settleTime is how long the file must stay quiet after a change before it is read: an editor or
// `kubectl apply` writes in several steps, and reading between them would report an invalid file
// that nobody wrote. Well below the second within which a change must be applied.
const settleTime = 100 * time.Millisecond

// fileChange is the content of the config file after a change, or why it could not be read.
type fileChange struct {
	data []byte
	err  error
}

// watchConfig sends the file's content once its directory has been quiet for settleTime after a
// change, identical or not: Agent.onFile tells a new content from the one running. It watches the
// directory, not the file: editors replace the file by renaming, and a Kubernetes ConfigMap volume
// swaps a symlink (..data) in that directory, both invisible to a watch on the old file. A change
// it missed (an fsnotify overflow) is caught by the periodic re-read in Agent.Run.
func watchConfig(ctx context.Context, path string, out chan<- fileChange) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch config: %w", err)
	}
	if err := w.Add(filepath.Dir(path)); err != nil {
		w.Close()
		return fmt.Errorf("watch config directory %s: %w", filepath.Dir(path), err)
	}
	// A file that is a symlink into another directory (not a ConfigMap's ..data, whose swap the
	// first watch sees) changes there: watch that directory too.
	if target, err := filepath.EvalSymlinks(path); err == nil && filepath.Dir(target) != filepath.Dir(path) {
		_ = w.Add(filepath.Dir(target))
	}
	go func() {
		defer w.Close()
		settle := time.NewTimer(time.Hour)
		settle.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.Events:
				settle.Reset(settleTime)
			case <-w.Errors:
				// Overflow: events were lost, so look at the file anyway.
				settle.Reset(settleTime)
			case <-settle.C:
				data, err := os.ReadFile(path)
				select {
				case out <- fileChange{data: data, err: err}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return nil
}

// contentSum tells file contents apart, so that a touch or a re-written identical file is no
// change.
func contentSum(data []byte) [32]byte { return sha256.Sum256(data) }
