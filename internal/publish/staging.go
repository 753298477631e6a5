package publish

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/results"
)

// StagingPrefix names a staging directory: hidden, plainly qjump's run in progress, and with the
// pid of the run that writes it, so that a later run can tell one whose run died (sweepStale). It
// is inside the output directory so that publishing is renames on one filesystem.
const StagingPrefix = ".qjump-staging-"

// Staging is a run's staging directory inside its output directory.
type Staging struct {
	out, dir string
	made     []string // the directories of out that the run made (MakeDirs)
	kept     bool     // the staged run is kept under a name of its own (Keep): Discard leaves it
	// replaced is where the publish kept the user's files that the run's replaced (keepReplaced).
	replaced *replacedFiles
	// lock is the staging directory opened and flock'ed for as long as the run has it, so that a
	// run's sweep (sweepStale) can tell a staging directory whose run lives on from a dead run's,
	// whatever pid namespace it runs in.
	lock *os.File
}

// Stage makes out (and its parents) where missing, and an empty staging directory in it, locked
// for this run.
func Stage(out string) (*Staging, error) {
	made, err := results.MakeDirs(out)
	if err != nil {
		results.RemoveMadeDirs(made)
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	sweepStale(out)
	s := &Staging{out: out, made: made}
	if s.dir, s.lock, err = makeLocked(out, fmt.Sprintf("%s%d-", StagingPrefix, os.Getpid())); err != nil {
		s.Discard()
		return nil, fmt.Errorf("create staging directory in %s: %w", out, err)
	}
	return s, nil
}

// makingPrefix names a directory being made (makeLocked), which no sweep takes for another's.
const makingPrefix = ".qjump-making-"

// makeLocked makes a new directory of out named prefix and a unique suffix, already locked
// (lockDir) when it appears under that name: made and locked under that name in two steps, a
// sweep of another run in between (sweepStale, recoverAside) found it unlocked and took it for a
// dead run's. It is made under makingPrefix, locked, and renamed. Where the filesystem has no
// locks (errNoLocks) it is made unlocked, and lock is nil.
func makeLocked(out, prefix string) (dir string, lock *os.File, err error) {
	tmp, err := os.MkdirTemp(out, makingPrefix+"*")
	if err != nil {
		return "", nil, err
	}
	lock, err = lockDir(tmp)
	if err != nil && !errors.Is(err, errNoLocks) {
		_ = os.Remove(tmp)
		return "", nil, fmt.Errorf("lock %s: %w", tmp, err)
	}
	dir = filepath.Join(out, prefix+strings.TrimPrefix(filepath.Base(tmp), makingPrefix))
	if err := renameNoReplace(tmp, dir); err != nil {
		if lock != nil {
			lock.Close()
		}
		_ = os.Remove(tmp)
		return "", nil, err
	}
	return dir, lock, nil
}

// errNoLocks is flock refused for want of locks (noLocks): runs there go on without them, and the
// sweeps decide by pid alone, or not at all (recoverAside). Locks are the kernel's: an output
// directory on a network filesystem shared by runs on two hosts is not guarded across them.
var errNoLocks = errors.New("no locks on this filesystem")

// lockDir opens dir and takes an exclusive flock on it without waiting: held by this process until
// the file is closed or the process dies, which is what the kernel releases it on. A filesystem
// that has no such locks is errNoLocks; one held elsewhere is unix.EWOULDBLOCK.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if noLocks(err) {
			return nil, fmt.Errorf("%w: %v", errNoLocks, err)
		}
		return nil, err
	}
	return f, nil
}

// noLocks says that flock failed for want of locks rather than because another holds one: ENOLCK
// (no lock could be had: the kernel's table, or a network filesystem's lock service), EOPNOTSUPP
// (a filesystem that refuses them), and EBADF, which NFS gives a directory: it emulates flock
// with a byte-range lock, whose exclusive kind needs a file open for writing (flock(2)), which a
// directory never is (review, helper-69: without it every run into an NFS directory failed).
func noLocks(err error) bool {
	return errors.Is(err, unix.ENOLCK) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EBADF)
}

// Dir is the staging directory, where the run writes its files.
func (s *Staging) Dir() string { return s.dir }

// Out is the output directory the run is published into.
func (s *Staging) Out() string { return s.out }

// sweepStale removes the staging directories in out of runs that died without removing theirs
// (SIGKILL, a crash): nothing else would, and a full run's files are megabytes. A run that is
// stopped removes its own, and one that could not publish keeps its files under a visible name
// (Keep), which is never swept. A staging directory is a dead run's when its lock is free (the
// kernel released it with the run: another pid namespace's run, a container's sharing the
// directory, holds its lock though its pid names nothing here) and its pid does not run here (a
// run of an earlier qjump took no lock).
func sweepStale(out string) {
	recoverAside(out)
	for _, name := range EntriesWithPrefix(out, StagingPrefix) {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(name, StagingPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processRuns(pid) {
			continue
		}
		dir := filepath.Join(out, name)
		lock, err := lockDir(dir)
		if err != nil && !errors.Is(err, errNoLocks) {
			continue // held: its run lives, elsewhere
		}
		_ = os.RemoveAll(dir)
		if lock != nil {
			lock.Close()
		}
	}
	// A directory a run died making (between MkdirTemp and its rename, microseconds) is empty;
	// one being made may not be locked yet, so only one a minute old goes. os.Remove removes only
	// an empty one.
	for _, name := range EntriesWithPrefix(out, makingPrefix) {
		dir := filepath.Join(out, name)
		if fi, err := os.Lstat(dir); err == nil && time.Since(fi.ModTime()) > time.Minute {
			_ = os.Remove(dir)
		}
	}
}

// asidePrefix names the directory a publish moves the earlier run's files into until every move
// is made (replace); recoveredPrefix the visible name such a directory gets when its publish died.
const (
	asidePrefix     = ".qjump-earlier-"
	recoveredPrefix = "earlier-run-"
)

// recoverAside gives a visible name, out/earlier-run-TIME, to each directory of an earlier run's
// files that a publish moved aside and never deleted or moved back because it died half-way
// (SIGKILL): those files are the earlier run's, and were left hidden in out, where the user would
// not find them. A publish that lives holds its directory's lock, and is left alone.
func recoverAside(out string) {
	for _, name := range EntriesWithPrefix(out, asidePrefix) {
		dir := filepath.Join(out, name)
		lock, err := lockDir(dir)
		if err != nil {
			continue // its publish lives, or no lock can tell
		}
		if os.Remove(dir) != nil { // not empty: the earlier run's files are in it
			_, _ = renameTimed(dir, filepath.Join(out, recoveredPrefix))
		}
		lock.Close()
	}
}

// renameTimed renames from to base and the time, base20060102-150405, with -N after it where that
// name is taken (two runs in one second), never replacing anything; it returns the name taken.
func renameTimed(from, base string) (string, error) {
	return takeTimed(base, func(to string) error { return renameNoReplace(from, to) })
}

// MakeTimedDir makes a new directory base20060102-150405, with -N after it where that name is
// taken: a run's own, whatever other runs start in the same second. It returns its name.
func MakeTimedDir(base string) (string, error) {
	return takeTimed(base, func(name string) error { return os.Mkdir(name, 0o755) })
}

// takeTimed takes (makes, or renames into) base and the time, trying -1, -2, ... after it while
// take finds the name taken (fs.ErrExist), and returns the name it took.
func takeTimed(base string, take func(name string) error) (string, error) {
	base += time.Now().Format("20060102-150405")
	var err error
	for i := 0; i < 100; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		if err = take(name); !errors.Is(err, fs.ErrExist) {
			return name, err
		}
	}
	return "", err
}

// EntriesWithPrefix names the entries of dir whose names start with prefix. Not filepath.Glob,
// which reads dir itself as a pattern: an output directory runs[1] matched nothing, and runs[
// was an error.
func EntriesWithPrefix(dir, prefix string) []string {
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

// Discard removes the staging directory, unless its run is kept (Keep), and out and its parents
// where Stage made them and they are empty: a run that failed or was stopped leaves out as it was.
func (s *Staging) Discard() {
	if s.dir != "" && !s.kept {
		_ = os.RemoveAll(s.dir)
	}
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
	results.RemoveMadeDirs(s.made)
}

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

// Layout is what of a run's output directory belongs to the run, for Publish.
type Layout struct {
	// Own are the run's directories of its own, replaced whole (the testbed's raw/).
	Own []string
	// Merge are directories whose files are published one by one, beside what the user keeps
	// there (the simulator's flows/).
	Merge []string
	// Partial says the run stopped before its end, and its record says so (Header.Interrupted).
	Partial bool
}

// ErrBesideEarlier is why a partial run was kept rather than published: out holds an earlier run
// of the experiment, which a run that stopped early must not replace.
var ErrBesideEarlier = errors.New("the output directory holds an earlier run, which this partial run does not replace")

// Publish replaces the earlier run of experiment in out, if out holds one, by the staged run: the
// files the earlier results.json lists and its own directories make way, a file of the user's
// that a staged file replaces is kept in out/replaced-TIME (Replaced), every other file of out
// stays, and the staged files are moved in (replace). A partial run where out holds an earlier
// run, complete or partial, is kept beside it instead (Keep, ErrBesideEarlier): a sweep stopped
// after a minute lost the hour-long run it was meant to redo, and one stopped after 15 points the
// 43 of an earlier stopped one.
func (s *Staging) Publish(experiment string, l Layout) error {
	return s.whileOutLocked(func() error {
		earlier, held := s.earlierRun(experiment, l.Own)
		if l.Partial && held {
			return s.Keep(ErrBesideEarlier)
		}
		return s.replace(earlier, l.Merge)
	})
}

// Replace replaces the entries of out that earlier names by the staged run (replace), for a caller
// that knows its earlier run by other means than a results.json (an advise's runs). earlier is
// asked once out is the publish's own (lockOut), as Publish reads the earlier run's record.
func (s *Staging) Replace(earlier func() []string) error {
	return s.whileOutLocked(func() error { return s.replace(earlier(), nil) })
}

// whileOutLocked runs publish holding out's lock (lockOut); a lock it cannot have keeps the run.
func (s *Staging) whileOutLocked(publish func() error) error {
	unlock, err := lockOut(s.out)
	if err != nil {
		return s.Keep(fmt.Errorf("publish the run into %s: %w", s.out, err))
	}
	defer unlock()
	return publish()
}

// lockOut waits for an exclusive flock on out itself and returns its release: one publish into
// out at a time, from reading the earlier run to the last move. Interleaved, a publish that failed
// moved its earlier run back over the files another had just published, which that one had been
// told were in place, and a partial run read no results.json while another's earlier run was
// aside, and replaced it (review, helper-68). A publish takes milliseconds. Where the filesystem
// has no locks (errNoLocks) there is no such guard.
func lockOut(out string) (unlock func(), err error) {
	f, err := os.Open(out)
	if err != nil {
		return nil, err
	}
	if err := flockWaiting(f, publishWait); err != nil {
		f.Close()
		if noLocks(err) {
			return func() {}, nil
		}
		return nil, fmt.Errorf("lock %s: %w", out, err)
	}
	// The directory locked must be out as it is now: one moved away and replaced by another of its
	// name while this waited would take a publish that another one also takes. (One replaced
	// earlier in the run has none of this run's staging in it: replace refuses that.)
	now, serr := os.Stat(out)
	locked, lerr := f.Stat()
	if serr != nil || lerr != nil || !os.SameFile(now, locked) {
		f.Close()
		return nil, fmt.Errorf("%s was moved or replaced during the run", out)
	}
	return func() { f.Close() }, nil
}

// publishWait is how long a publish waits for another into the same directory: they take
// milliseconds, so one that holds it longer is stopped (Ctrl-Z) or hung.
const publishWait = 30 * time.Second

// flockWaiting takes an exclusive flock on f, trying every 10 ms for at most wait: a blocking
// flock waits for ever behind a stopped process, and Ctrl-C cannot interrupt it.
func flockWaiting(f *os.File, wait time.Duration) error {
	for end := time.Now().Add(wait); ; time.Sleep(10 * time.Millisecond) {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(end) {
			return fmt.Errorf("another run has been publishing into it for %s (stopped?)", wait)
		}
	}
}

// earlierRun names the earlier run's own entries of out: its own directories, the files its
// results.json lists that are there, and results.json itself; held says there is one. Only a results.json of the same experiment makes them a run's (ExperimentIn's
// reading, with the list beside it); without one, a file of such a name is the user's, and only
// one the run writes replaces it.
func (s *Staging) earlierRun(experiment string, own []string) (names []string, held bool) {
	var earlier struct {
		results.Header
		Files []string `json:"files"`
	}
	if results.ReadJSON(filepath.Join(s.out, "results.json"), &earlier) != nil || earlier.Experiment != experiment {
		return nil, false
	}
	names = slices.Clone(own)
	for _, name := range append(earlier.Files, "results.json") {
		if fi, err := os.Lstat(filepath.Join(s.out, name)); err == nil && fi.Mode().IsRegular() && filepath.IsLocal(name) &&
			!slices.Contains(names, name) && !inOwnDir(name, own) {
			names = append(names, name)
		}
	}
	return names, true
}

// inOwnDir says whether name is inside one of the run's own directories, which move whole.
func inOwnDir(name string, own []string) bool {
	for _, d := range own {
		if strings.HasPrefix(filepath.Clean(name), filepath.Clean(d)+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// replace moves aside, into a directory of out, the earlier run's entries and every file of out
// that a staged entry would replace, then moves the staged entries in (results.json last), and
// deletes the two directories only once every move is made. Where a move cannot be made, nothing
// is deleted: what moved is moved back, the earlier run and the user's files into out and the new
// run into its staging directory, which is kept (Keep), and the error names where each is. A
// directory of out where the run has an entry of that name (the user's raw/, with no run beside
// it) is not merged into, which could not be undone: the run is kept beside it. Deleting the
// earlier run first, a move that failed (a raw that is the user's symlink) lost both runs.
func (s *Staging) replace(earlier, merge []string) error {
	names := stagedNames(s.dir, merge)
	if len(names) == 0 {
		// Its staging directory gone (removed by hand, or out moved away): publishing nothing
		// would only delete the earlier run (review, helper-69).
		return fmt.Errorf("publish the run into %s: its staging directory %s is gone or empty: nothing to publish, "+
			"and the earlier run stays", s.out, s.dir)
	}
	// Locked while the publish lives: one that dies half-way leaves the earlier run's files here,
	// which the next run's sweep makes visible (recoverAside).
	aside, lock, err := makeLocked(s.out, asidePrefix)
	if err != nil {
		return s.Keep(fmt.Errorf("publish the run into %s: %w", s.out, err))
	}
	if lock != nil {
		defer lock.Close()
	}
	var movedIn, madeIn []string
	users := s.replacedFiles(names, earlier)
	movedAside, _, err := moveEntries(s.out, aside, append(earlier, users...), os.Rename)
	if err == nil {
		err = s.inTheWay(names)
	}
	if err == nil {
		movedIn, madeIn, err = moveEntries(s.dir, s.out, names, renameIn)
	}
	if err == nil {
		s.keepReplaced(aside, earlier, users)
		return os.RemoveAll(s.dir)
	}
	err = fmt.Errorf("publish the run into %s: %w", s.out, err)
	_, _, backIn := moveEntries(s.out, s.dir, movedIn, os.Rename)
	results.RemoveMadeDirs(madeIn)
	_, _, backAside := moveEntries(aside, s.out, movedAside, os.Rename)
	if backIn != nil || backAside != nil {
		return s.Keep(fmt.Errorf("%w; putting the runs back failed too (%v), so some of the earlier run's files are in %s and "+
			"some of the new run's in %s", err, errors.Join(backIn, backAside), aside, s.out))
	}
	_ = os.RemoveAll(aside) // empty, but for the directories a merge's files were moved aside into
	return s.Keep(err)
}

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

// inTheWay refuses a publish where out still has an entry of a staged name once the earlier run
// and the replaced files are aside: the user's directory, which a rename does not replace.
func (s *Staging) inTheWay(names []string) error {
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(s.out, name)); err == nil {
			return fmt.Errorf("%s is there already as a directory, not a run's, where the run has an entry of that name",
				filepath.Join(s.out, name))
		}
	}
	return nil
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
