package publish

// What runs that died left in out: their staging directories, which the next run sweeps, and an
// earlier run's files that a publish had moved aside, which it gives a visible name.

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// sweepStale removes the staging directories in out of runs that died without removing theirs
// (SIGKILL, a crash): nothing else would, and a full run's files are megabytes. A run that is
// stopped removes its own, and one that could not publish keeps its files under a visible name
// (Keep), which is never swept. A staging directory is a dead run's when its lock is free (the
// kernel released it with the run: another pid namespace's run, a container's sharing the
// directory, holds its lock though its pid names nothing here) and its pid does not run here (a
// run of an earlier qjump took no lock), or, its lock taken, it was made before the host booted:
// after a reboot its pid may name another process, which kept it for good (review, helper-85).
// Where there are no locks (NFS), the pid alone decides: a clock stepped forward since the boot,
// or a server's clock behind, can make a live run's directory look older than the boot (review,
// helper-100).
func sweepStale(out string) {
	recoverAside(out)
	booted := bootTime()
	for _, name := range EntriesWithPrefix(out, StagingPrefix) {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(name, StagingPrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue
		}
		dir := filepath.Join(out, name)
		runs := processRuns(pid)
		if runs && !madeBefore(dir, booted) {
			continue
		}
		lock, err := lockDir(dir)
		if err != nil && !errors.Is(err, errNoLocks) {
			continue // held: its run lives, elsewhere
		}
		if lock == nil && runs {
			continue // no locks here: the pid alone can tell, and it runs
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

// bootTime is when the host booted (the zero time if it cannot be told, before anything).
func bootTime() time.Time {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return time.Time{}
	}
	return time.Now().Add(-time.Duration(si.Uptime) * time.Second)
}

// madeBefore says whether dir was last changed before t, a minute's leeway for the clock: a
// directory made since the boot was changed since, so one unchanged since before it was made by
// a run that cannot live on.
func madeBefore(dir string, t time.Time) bool {
	fi, err := os.Lstat(dir)
	return err == nil && fi.ModTime().Before(t.Add(-time.Minute))
}

// processRuns says whether a process of this pid runs (EPERM: it does, as another user's).
func processRuns(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
