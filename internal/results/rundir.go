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
	"slices"
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

// MoveInto moves every entry of src into dst, which is on the same filesystem: a file replaces
// dst's file of the same name; a directory is moved whole, or merged entry by entry into dst's
// directory of the same name. A results.json goes last, so that one in dst is always a whole
// run's: moved first, a move that failed after it would leave it naming files that are not there.
// Clash says beforehand whether a move would fail for the kinds of the entries.
func MoveInto(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(entries, func(e os.DirEntry) bool { return e.Name() == "results.json" }); i >= 0 {
		last := entries[i]
		entries = append(slices.Delete(entries, i, i+1), last)
	}
	for _, e := range entries {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if fi, err := os.Lstat(to); err == nil && fi.IsDir() && e.IsDir() {
			if err := MoveInto(from, to); err != nil {
				return err
			}
			continue
		}
		if err := os.Rename(from, to); err != nil {
			return fmt.Errorf("move the run's %s into %s: %w", e.Name(), dst, err)
		}
	}
	return nil
}

// Clash names the first entry of src that MoveInto could not move into dst for what is there
// already: a directory where dst has a file or a symlink (a rename does not replace either with a
// directory, nor follow the link), or a file where dst has a directory; nil if there is none.
func Clash(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		to := filepath.Join(dst, e.Name())
		fi, err := os.Lstat(to)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return err
		case e.IsDir() && fi.IsDir():
			if err := Clash(filepath.Join(src, e.Name()), to); err != nil {
				return err
			}
		case e.IsDir() || fi.IsDir():
			return fmt.Errorf("%s is there already as %s, where the run has %s of that name", to, kindOf(fi.Mode()), kindOf(e.Type()))
		}
	}
	return nil
}

// kindOf names what a directory entry is, as Clash's message does.
func kindOf(t fs.FileMode) string {
	switch {
	case t&fs.ModeSymlink != 0:
		return "a symlink"
	case t.IsDir():
		return "a directory"
	}
	return "a file"
}
