package publish

// A run that cannot publish keeps its files under a visible name (Keep), and its error says where
// (Kept).

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Keep gives the staged run a visible name in out, unpublished-TIME (-N after the first), where the
// user can look at it or report on it, and says so in err (see Kept): a run that measured and then
// could not publish, or could not finish its files, keeps what it has. The name is made unique
// first (two runs can fail in one second), and it is never one that sweepStale removes.
func (s *Staging) Keep(err error) error {
	s.kept = true
	kept, rerr := renameTimed(s.dir, filepath.Join(s.out, "unpublished-"))
	switch {
	case rerr == nil:
		return &keptError{err: err, dir: kept}
	case errors.Is(rerr, fs.ErrNotExist):
		// out, or the staging directory, is not where it was: moved or removed during the run.
		return fmt.Errorf("%w; %s or its staging directory %s was moved or removed during the run, so the run's files "+
			"are wherever that went", err, s.out, filepath.Base(s.dir))
	}
	// Where out takes no new name the files stay under the staging name, which the next run's
	// sweep would take for a dead run's: the error says so.
	return &keptError{err: err, dir: s.dir, unnamed: true}
}

// keptError is a run's error when its files are kept rather than published (Keep): it says where.
type keptError struct {
	err     error
	dir     string
	unnamed bool // left under its staging name: copy it away before the next run into out
}

func (k *keptError) Error() string {
	if k.unnamed {
		return fmt.Sprintf("%v; the run's files are kept in %s (the output directory takes no new name: copy them away before "+
			"the next run into it, which removes that directory)", k.err, k.dir)
	}
	return fmt.Sprintf("%v; the run's files are kept in %s", k.err, k.dir)
}

func (k *keptError) Unwrap() error { return k.err }

// Kept is the directory where a run kept its files rather than publish them (OUT/unpublished-TIME),
// if err says so: a run that failed or stopped with its files kept did write something.
func Kept(err error) (dir string, ok bool) {
	var k *keptError
	if errors.As(err, &k) {
		return k.dir, true
	}
	return "", false
}

// Unnamed says that err's run is kept under its staging name (out took no new name), which the
// next run's sweep removes: the error says to copy it away, and must reach the user.
func Unnamed(err error) bool {
	var k *keptError
	return errors.As(err, &k) && k.unnamed
}

// KeptWithin updates err, a run's kept files (Keep) inside the staging directory from of an outer
// run, once that outer run was kept too (outer, its Keep's error) and took them along: err then
// names where they are now. An advise keeps its confirming runs this way.
func KeptWithin(err error, from string, outer error) {
	var k, o *keptError
	if !errors.As(err, &k) || !errors.As(outer, &o) {
		return
	}
	k.dir = Relocated(k.dir, from, o.dir)
	k.unnamed = k.unnamed || o.unnamed
}

// Relocated is path, if it is under from, as it is under to once from has been moved there; any
// other path as it is.
func Relocated(path, from, to string) string {
	if rel, err := filepath.Rel(from, path); err == nil && filepath.IsLocal(rel) {
		return filepath.Join(to, rel)
	}
	return path
}
