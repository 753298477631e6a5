package publish

// The user's files that a run's files of the same names replace: moved aside with the earlier run,
// then kept in out/replaced-TIME, readable by the user, and named.

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// replacedPrefix names the directory of out that keeps the user's files a run's files replaced.
const replacedPrefix = "replaced-"

// keepReplaced deletes the earlier run's entries from aside, where the publish moved them, and
// keeps the user's files that the run's files replaced (users, also in aside) under a visible
// name, out/replaced-TIME, which Replaced reports: a summary.md or a plot of the user's in out,
// with no run beside it, was deleted without a word (review, helper-71). Nothing else of aside is
// deleted; a directory that cannot be renamed stays hidden, for the next run's sweep to name
// (recoverAside).
func (s *Staging) keepReplaced(aside string, earlier, users []string) {
	if len(users) == 0 {
		_ = os.RemoveAll(aside)
		return
	}
	for _, name := range earlier {
		_ = os.RemoveAll(filepath.Join(aside, name))
	}
	removeEmptyDirs(aside)
	dir, err := renameTimed(aside, filepath.Join(s.out, replacedPrefix))
	if err != nil {
		dir = aside
	}
	s.replaced = &replacedFiles{dir: dir, files: users}
	s.giveBack(dir)
	for _, name := range users {
		relinkMoved(s.out, dir, name, users)
	}
}

// giveBack makes the directories of dir (dir itself, made private as every aside directory is,
// and those a nested name needed) readable by all and, for a run as root, the owner's of out: a
// publish under sudo kept the user's files in a directory only root could open (review,
// helper-75). The files in it keep their own owners and modes.
func (s *Staging) giveBack(dir string) {
	fi, err := os.Stat(s.out)
	if err != nil {
		return
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		_ = os.Chmod(path, 0o755)
		if os.Geteuid() == 0 {
			_ = os.Lchown(path, int(st.Uid), int(st.Gid))
		}
		return nil
	})
}

// relinkMoved points the symlink name, moved from out into dir with the other kept files (kept),
// at what it named before, where its target is relative and outside what was kept: relative to
// its new directory it would name another file, or none (review, helper-75: a kept summary.md ->
// notes/sum.md dangled). A target kept beside it moved with it, and the link still names it there
// (review, helper-76: b.md -> a.md, both kept, was pointed at the new run's a.md).
func relinkMoved(out, dir, name string, kept []string) {
	to := filepath.Join(dir, name)
	target, err := os.Readlink(to)
	if err != nil || filepath.IsAbs(target) {
		return // not a symlink, or one that names the same file wherever it is
	}
	named := filepath.Join(filepath.Dir(filepath.Join(out, name)), target)
	if rel, err := filepath.Rel(out, named); err == nil && slices.Contains(kept, rel) {
		return
	}
	rel, err := filepath.Rel(filepath.Dir(to), named)
	if err != nil {
		return
	}
	tmp := to + ".qjump-relink"
	if os.Symlink(rel, tmp) == nil && os.Rename(tmp, to) != nil {
		_ = os.Remove(tmp)
	}
}

// removeEmptyDirs removes the empty directories under root (not root), deepest first: what is left
// of a merge directory whose files were the earlier run's.
func removeEmptyDirs(root string) {
	var dirs []string
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path != root {
			dirs = append(dirs, path)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i]) // only an empty one goes
	}
}

// replacedFiles is what keepReplaced kept: the user's files (relative to out) and where they are.
type replacedFiles struct {
	dir   string
	files []string
}

// Replaced says where the publish kept the user's files that the run's files of the same names
// replaced, and which: "" when it replaced none.
func (s *Staging) Replaced() (dir string, files []string) {
	if s.replaced == nil {
		return "", nil
	}
	return s.replaced.dir, s.replaced.files
}

// SayReplaced tells w where the publish kept the user's files that the run's replaced, if any.
func (s *Staging) SayReplaced(w io.Writer) {
	if dir, files := s.Replaced(); dir != "" && w != nil {
		fmt.Fprintf(w, "qjump: %s held %s of its own, not a run's, where the run writes files of those names: "+
			"moved to %s\n", s.out, quotedList(files), dir)
	}
}

// quotedList is names joined by commas, at most five of them and how many more.
func quotedList(names []string) string {
	const most = 5
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

// replacedFiles are the entries of out, not of the earlier run, that a staged entry of the same
// name would replace: files and symlinks (a directory is in the way instead, inTheWay). They are
// moved aside with the earlier run, so that a failed publish puts them back.
func (s *Staging) replacedFiles(names, earlier []string) []string {
	var files []string
	for _, name := range names {
		if fi, err := os.Lstat(filepath.Join(s.out, name)); err == nil && !fi.IsDir() && !slices.Contains(earlier, name) {
			files = append(files, name)
		}
	}
	return files
}
