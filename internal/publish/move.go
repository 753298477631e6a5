package publish

// Moving entries between directories: renames that never replace, and the staged run's entries in
// the order a publish moves them.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/results"
)

// renameNoReplace renames from to to unless to exists (fs.ErrExist): another run's kept files are
// never replaced. A filesystem without RENAME_NOREPLACE gets a check before the rename instead.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		if _, serr := os.Lstat(to); serr == nil {
			return fs.ErrExist
		}
		return os.Rename(from, to)
	}
	if errors.Is(err, unix.EEXIST) {
		return fs.ErrExist
	}
	return err
}

// stagedNames is the staged run's entries, results.json last: a results.json in out is always a
// whole run's, since the move stops at the first entry it cannot make. A directory of merge is
// named by its files (flows/websearch-0.5-tcp.csv), which are moved in one by one.
func stagedNames(dir string, merge []string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	record := false
	for _, e := range entries {
		switch {
		case e.Name() == "results.json":
			record = true
		case e.IsDir() && slices.Contains(merge, e.Name()):
			names = append(names, filesUnder(dir, e.Name())...)
		default:
			names = append(names, e.Name())
		}
	}
	if record {
		names = append(names, "results.json")
	}
	return names
}

// filesUnder names, relative to dir, every file under dir's subdirectory sub.
func filesUnder(dir, sub string) []string {
	var names []string
	_ = filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			names = append(names, rel)
		}
		return nil
	})
	return names
}

// renameIn is os.Rename for the moves of a publish: a test's seam, to fail one move after others
// were made, as an immutable file or a mount point in out would.
var renameIn = os.Rename

// moveEntries renames each of names (a path relative to both directories) from one directory into
// another, making the directories a name needs there (made, deepest first: MakeDirs), and returns
// those it moved.
func moveEntries(from, to string, names []string, rename func(from, to string) error) (moved, made []string, err error) {
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(from, name)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if parent := filepath.Dir(name); parent != "." {
			m, err := results.MakeDirs(filepath.Join(to, parent))
			made = append(m, made...)
			if err != nil {
				return moved, made, fmt.Errorf("move %s from %s to %s: %w", name, from, to, err)
			}
		}
		if err := rename(filepath.Join(from, name), filepath.Join(to, name)); err != nil {
			return moved, made, fmt.Errorf("move %s from %s to %s: %w", name, from, to, err)
		}
		moved = append(moved, name)
	}
	return moved, made, nil
}
