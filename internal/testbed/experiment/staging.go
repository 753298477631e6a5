package experiment

// A run writes into a staging directory inside --out and replaces the earlier run there only once
// it has written every file. Writing into --out directly, a rerun stopped half-way overwrote the
// earlier, complete run's stalls.csv and raw/ files beside its results.json and samples.csv, which
// report then recomputed with the other run's stalls; and a complete rerun left raw/ files of the
// earlier one that it did not write itself. Publishing deletes nothing until every move is made
// (replace), and a run that has measured but cannot publish keeps its files (keep).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/results"
)

// stagingPrefix names a staging directory: hidden, plainly qjump's run in progress, and with the
// pid of the run that writes it, so that a later run can tell one whose run died (sweepStale). It
// is inside --out so that publishing is renames on one filesystem.
const (
	stagingPrefix  = ".qjump-staging-"
	stagingPattern = stagingPrefix + "*"
)

// staging is a run's staging directory, dir, inside its output directory, out.
type staging struct {
	out, dir string
	made     []string // the directories of out that the run made (results.MakeDirs)
	kept     bool     // the staged run is kept under a name of its own (keep): discard leaves it
}

// stage makes out (and its parents) where missing, and the staging directory with its raw/ in it.
func stage(out string) (*staging, error) {
	s, err := stageEmpty(out)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(s.dir, "raw"), 0o755); err != nil {
		s.discard()
		return nil, fmt.Errorf("create staging directory in %s: %w", out, err)
	}
	return s, nil
}

// stageEmpty makes out (and its parents) where missing, and an empty staging directory in it.
func stageEmpty(out string) (*staging, error) {
	made, err := results.MakeDirs(out)
	if err != nil {
		results.RemoveMadeDirs(made)
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	sweepStale(out)
	s := &staging{out: out, made: made}
	if s.dir, err = os.MkdirTemp(out, fmt.Sprintf("%s%d-*", stagingPrefix, os.Getpid())); err != nil {
		s.discard()
		return nil, fmt.Errorf("create staging directory in %s: %w", out, err)
	}
	return s, nil
}

// sweepStale removes the staging directories in out of runs that died without removing theirs
// (SIGKILL, a crash), those whose pid no longer runs: nothing else would, and a full run's raw/
// is megabytes. A run that is stopped removes its own, and one that could not publish keeps its
// files under a visible name (keep), which is never swept.
func sweepStale(out string) {
	for _, name := range entriesWithPrefix(out, stagingPrefix) {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(name, stagingPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processRuns(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(out, name))
	}
}

// entriesWithPrefix names the entries of dir whose names start with prefix. Not filepath.Glob,
// which reads dir itself as a pattern: an --out of runs[1] matched nothing, and runs[ was an error.
func entriesWithPrefix(dir, prefix string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			names = append(names, e.Name())
		}
	}
	return names
}

// processRuns says whether a process of this pid runs (EPERM: it does, as another user's).
func processRuns(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// discard removes the staging directory, unless its run is kept (keep), and out and its parents
// where the run made them and they are empty: a run that failed or was stopped leaves out as it
// was.
func (s *staging) discard() {
	if s.dir != "" && !s.kept {
		_ = os.RemoveAll(s.dir)
	}
	results.RemoveMadeDirs(s.made)
}

// keep gives the staged run a visible name in out, unpublished-TIME (-N after the first), where the user can look at
// it or run qjump testbed report on it, and says so in err (a *keptError): a run that measured and
// then could not publish, or could not finish its files, keeps what it measured. The name is made
// unique first (two runs can fail in one second), and it is never one that sweepStale removes.
func (s *staging) keep(err error) error {
	s.kept = true
	base := filepath.Join(s.out, "unpublished-"+time.Now().Format("20060102-150405"))
	for i := 0; i < 100; i++ {
		kept := base
		if i > 0 {
			kept = fmt.Sprintf("%s-%d", base, i)
		}
		rerr := renameNoReplace(s.dir, kept)
		if rerr == nil {
			return &keptError{err: err, dir: kept}
		}
		if !errors.Is(rerr, fs.ErrExist) {
			break
		}
	}
	// Where out takes no new name the files stay under the staging name, which the next run's
	// sweep would take for a dead run's: the error says so.
	return &keptError{err: err, dir: s.dir, unnamed: true}
}

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

// keptError is a run's error when its files are kept rather than published (keep): it says where.
type keptError struct {
	err     error
	dir     string
	unnamed bool // left under its staging name: copy it away before the next run into out
}

func (k *keptError) Error() string {
	if k.unnamed {
		return fmt.Sprintf("%v; the run's files are kept in %s (out takes no new name: copy them away before the next run into it, which removes that directory)", k.err, k.dir)
	}
	return fmt.Sprintf("%v; the run's files are kept in %s", k.err, k.dir)
}

func (k *keptError) Unwrap() error { return k.err }

// publish replaces the earlier run of experiment in out, if out holds one, by the staged run: the
// files the earlier results.json lists and its raw/ make way, every other file of out stays, and
// the staged files are moved in (replace).
func (s *staging) publish(experiment string) error {
	return s.replace(s.earlierRun(experiment))
}

// earlierRun names the earlier run's own entries of out: the files its results.json lists that
// are there, results.json itself, and raw/. Only a results.json of the same experiment makes them
// a run's (results.ExperimentIn's reading, with the list beside it); without one, a file of such
// a name is the user's, and only one the run writes replaces it.
func (s *staging) earlierRun(experiment string) []string {
	var earlier struct {
		results.Header
		Files []string `json:"files"`
	}
	if results.ReadJSON(filepath.Join(s.out, "results.json"), &earlier) != nil || earlier.Experiment != experiment {
		return nil
	}
	names := []string{"raw"}
	for _, name := range append(earlier.Files, "results.json") {
		if fi, err := os.Lstat(filepath.Join(s.out, name)); err == nil && fi.Mode().IsRegular() && filepath.IsLocal(name) &&
			!slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// publishAdvice replaces an earlier advise's runs in out (sweep/ and every confirm-f5=*/ that
// holds a memcached-sweep run) by the staged ones. Advise's runs are published together: each
// published on its own, a rerun stopped after its sweep left the new sweep/ beside the earlier
// advise's confirming runs, and a rerun that chose another factor left the earlier one's.
func (s *staging) publishAdvice() error {
	var earlier []string
	for _, name := range append(entriesWithPrefix(s.out, confirmPrefix), sweepDir) {
		if results.ExperimentIn(filepath.Join(s.out, name)) == "memcached-sweep" { // else the user's, left alone
			earlier = append(earlier, name)
		}
	}
	return s.replace(earlier)
}

// replace moves aside, into a directory of out, the earlier run's entries and every file of out
// that a staged entry would replace, then moves the staged entries in (results.json last), and
// deletes the two directories only once every move is made. Where a move cannot be made, nothing
// is deleted: what moved is moved back, the earlier run and the user's files into out and the new
// run into its staging directory, which is kept (keep), and the error names where each is. A
// directory of out where the run has an entry of that name (the user's raw/, with no run beside
// it) is not merged into, which could not be undone: the run is kept beside it. Deleting the
// earlier run first, a move that failed (a raw that is the user's symlink) lost both runs.
func (s *staging) replace(earlier []string) error {
	aside, err := os.MkdirTemp(s.out, ".qjump-earlier-*")
	if err != nil {
		return s.keep(fmt.Errorf("publish the run into %s: %w", s.out, err))
	}
	names := stagedNames(s.dir)
	var movedIn []string
	movedAside, err := moveEntries(s.out, aside, append(earlier, s.replacedFiles(names, earlier)...), os.Rename)
	if err == nil {
		err = s.inTheWay(names)
	}
	if err == nil {
		movedIn, err = moveEntries(s.dir, s.out, names, renameIn)
	}
	if err == nil {
		_ = os.RemoveAll(aside)
		return os.RemoveAll(s.dir)
	}
	err = fmt.Errorf("publish the run into %s: %w", s.out, err)
	_, backIn := moveEntries(s.out, s.dir, movedIn, os.Rename)
	_, backAside := moveEntries(aside, s.out, movedAside, os.Rename)
	if backIn != nil || backAside != nil {
		return s.keep(fmt.Errorf("%w; putting the runs back failed too (%v), so some of the earlier run's files are in %s and "+
			"some of the new run's in %s", err, errors.Join(backIn, backAside), aside, s.out))
	}
	_ = os.Remove(aside)
	return s.keep(err)
}

// replacedFiles are the entries of out, not of the earlier run, that a staged entry of the same
// name would replace: files and symlinks (a directory is in the way instead, inTheWay). They are
// moved aside with the earlier run, so that a failed publish puts them back.
func (s *staging) replacedFiles(names, earlier []string) []string {
	var files []string
	for _, name := range names {
		if fi, err := os.Lstat(filepath.Join(s.out, name)); err == nil && !fi.IsDir() && !slices.Contains(earlier, name) {
			files = append(files, name)
		}
	}
	return files
}

// inTheWay refuses a publish where out still has an entry of a staged name once the earlier run
// and the replaced files are aside: the user's directory, which a rename does not replace.
func (s *staging) inTheWay(names []string) error {
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(s.out, name)); err == nil {
			return fmt.Errorf("%s is there already as a directory, not a run's, where the run has an entry of that name",
				filepath.Join(s.out, name))
		}
	}
	return nil
}

// stagedNames is the staged run's entries, results.json last: a results.json in out is always a
// whole run's, since the move stops at the first entry it cannot make.
func stagedNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if e.Name() != "results.json" {
			names = append(names, e.Name())
		}
	}
	if len(names) < len(entries) {
		names = append(names, "results.json")
	}
	return names
}

// renameIn is os.Rename for the moves of a publish: a test's seam, to fail one move after others
// were made, as an immutable file or a mount point in out would.
var renameIn = os.Rename

// moveEntries renames each of names from one directory into another, and returns those it moved.
func moveEntries(from, to string, names []string, rename func(from, to string) error) (moved []string, err error) {
	for _, name := range names {
		err := rename(filepath.Join(from, name), filepath.Join(to, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return moved, fmt.Errorf("move %s from %s to %s: %w", name, from, to, err)
		}
		moved = append(moved, name)
	}
	return moved, nil
}

// Kept is the directory where a run that failed kept its files rather than publish them
// (DIR/unpublished-TIME), if err says so: a stopped run whose files were kept did write something.
func Kept(err error) (dir string, ok bool) {
	var k *keptError
	if errors.As(err, &k) {
		return k.dir, true
	}
	return "", false
}
