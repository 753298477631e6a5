package results

// A run's directory holds one whole run: a run replaces the earlier one's files only once it has
// written all of its own, and a run that fails or is stopped leaves the directory, and the
// directories above it, as they were. These are the file operations that takes.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveOwn removes every regular file of dir whose name own says the experiment writes. A dir
// that does not exist has nothing to remove.
func RemoveOwn(dir string, own func(name string) bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s for the files of an earlier run: %w", dir, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !own(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s, an earlier run's file: %w", path, err)
		}
	}
	return nil
}

// MakeDirs makes dir and whatever parents it lacks, as os.MkdirAll does, and returns the
// directories it made, deepest first, for RemoveMadeDirs: a run that fails early then leaves no
// empty results/ or a/b/ behind, only what was there before it.
func MakeDirs(dir string) (made []string, err error) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	return made, os.MkdirAll(dir, 0o755)
}

// RemoveMadeDirs removes the directories MakeDirs made, deepest first, each only if it is empty:
// one that holds anything (a file the run wrote, or the user's) stays, and so do those above it.
// One that is not there (MkdirAll failed before making it, for a name too long, say) is passed
// over.
func RemoveMadeDirs(made []string) {
	for _, d := range made {
		if err := os.Remove(d); err != nil {
			if _, lerr := os.Lstat(d); lerr == nil {
				return // there, and not empty
			}
		}
	}
}
