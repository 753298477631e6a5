package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testutil"
)

// testbedLayout is the testbed's: its raw/ is the run's own.
var testbedLayout = Layout{Own: []string{"raw"}}

// stageRaw stages a run into out with its raw/ made, as the testbed does.
func stageRaw(t *testing.T, out string) (*Staging, error) {
	t.Helper()
	st, err := Stage(out)
	if err == nil {
		err = os.Mkdir(filepath.Join(st.Dir(), "raw"), 0o755)
	}
	return st, err
}

// writeEarlierRun writes a small testbed run into dir, as a complete earlier run left it, and
// returns dir's contents.
func writeEarlierRun(t *testing.T, dir string) map[string]string {
	t.Helper()
	for name, text := range map[string]string{
		"results.json": `{"experiment": "fan-in", "files": ["samples.csv", "results.json", "summary.md", "stalls.csv"]}`,
		"samples.csv":  "the earlier run's samples", "summary.md": "the earlier run's summary",
		"stalls.csv": "the earlier run's stalls", "raw/noise-arrivals.csv": "the earlier run's arrivals",
	} {
		testutil.WriteFile(t, filepath.Join(dir, name), text)
	}
	return testutil.DirContents(t, dir)
}

// A run that finishes replaces the earlier run of its experiment: the files that run listed and
// its raw/ go, even those the new run does not write; the user's files stay; nothing is staged.
func TestPublishReplacesTheEarlierRun(t *testing.T) {
	out := t.TempDir()
	writeEarlierRun(t, out)
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := stageRaw(t, out)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"results.json": `{"experiment": "fan-in", "files": ["results.json", "fig11.png"]}`,
		"fig11.png": "new plot", "raw/f7=1-arrivals.csv": "new arrivals"} {
		if err := os.WriteFile(filepath.Join(st.Dir(), name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Publish("fan-in", testbedLayout); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"notes.txt": "the user's", "results.json": `{"experiment": "fan-in", "files": ["results.json", "fig11.png"]}`,
		"fig11.png": "new plot", "raw": "<dir>", "raw/f7=1-arrivals.csv": "new arrivals"}
	if got := testutil.DirContents(t, out); !maps.Equal(got, want) {
		t.Errorf("after publishing:\n got %v\nwant %v", got, want)
	}
}

// A file of the user's that a run's file of the same name replaces is kept, in out/replaced-TIME,
// and Replaced says which and where; the earlier run's replaced files are not kept, and a user's
// file in a merge directory is kept under its path there (review, helper-71: a summary.md and a
// plot of the user's in --out went without a word).
func TestPublishKeepsTheUsersReplacedFiles(t *testing.T) {
	out := t.TempDir()
	testutil.WriteFile(t, filepath.Join(out, "summary.md"), "the user's notes")
	testutil.WriteFile(t, filepath.Join(out, "flows", "a.csv"), "the user's a")
	testutil.WriteFile(t, filepath.Join(out, "other.txt"), "the user's other")
	st, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"results.json": `{"experiment": "sim-fig9", "files": ["summary.md"]}`,
		"summary.md": "new summary", "flows/a.csv": "new a"} {
		testutil.WriteFile(t, filepath.Join(st.Dir(), name), text)
	}
	if err := st.Publish("sim-fig9", Layout{Merge: []string{"flows"}}); err != nil {
		t.Fatal(err)
	}
	dir, files := st.Replaced()
	if !strings.HasPrefix(filepath.Base(dir), replacedPrefix) || filepath.Dir(dir) != out ||
		!slices.Equal(files, []string{"flows/a.csv", "summary.md"}) {
		t.Fatalf("Replaced: %q, %q; want out/%sTIME holding flows/a.csv and summary.md", dir, files, replacedPrefix)
	}
	kept := filepath.Base(dir)
	want := map[string]string{"results.json": `{"experiment": "sim-fig9", "files": ["summary.md"]}`, "summary.md": "new summary",
		"flows": "<dir>", "flows/a.csv": "new a", "other.txt": "the user's other",
		kept: "<dir>", kept + "/summary.md": "the user's notes", kept + "/flows": "<dir>", kept + "/flows/a.csv": "the user's a"}
	if got := testutil.DirContents(t, out); !maps.Equal(got, want) {
		t.Errorf("after publishing:\n got %v\nwant %v", got, want)
	}
	var said strings.Builder
	st.SayReplaced(&said)
	if !strings.Contains(said.String(), "flows/a.csv, summary.md of its own") || !strings.Contains(said.String(), "moved to "+dir) {
		t.Errorf("SayReplaced said %q; want the files and where they went", said.String())
	}

	// The kept directory is the owner's of out, open to all (it was made private, and a run as
	// root left the user's files where only root could read them).
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("%s: %v, mode %v; want 0755", dir, err, fi.Mode())
	}

	// A rerun replaces the earlier run's files, and keeps nothing of them.
	st, err = Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(st.Dir(), "summary.md"), "newer summary")
	testutil.WriteFile(t, filepath.Join(st.Dir(), "results.json"), `{"experiment": "sim-fig9", "files": ["summary.md"]}`)
	if err := st.Publish("sim-fig9", Layout{Merge: []string{"flows"}}); err != nil {
		t.Fatal(err)
	}
	if dir, files := st.Replaced(); dir != "" || files != nil {
		t.Errorf("a rerun over an earlier run: Replaced %q, %q; want nothing", dir, files)
	}
	if n := len(EntriesWithPrefix(out, replacedPrefix)); n != 1 {
		t.Errorf("%d directories %s* after the rerun, want the first run's one", n, replacedPrefix)
	}
}

// A replaced file of the user's that is a relative symlink still names its target once kept:
// moved as it was, summary.md -> notes/sum.md dangled in replaced-TIME (review, helper-75).
func TestKeptSymlinkStillNamesItsTarget(t *testing.T) {
	out := t.TempDir()
	root := os.Geteuid() == 0
	if root { // a user's out, published into by a run under sudo
		if err := os.Chown(out, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteFile(t, filepath.Join(out, "notes", "sum.md"), "the user's notes")
	if err := os.Symlink("notes/sum.md", filepath.Join(out, "summary.md")); err != nil {
		t.Fatal(err)
	}
	st, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(st.Dir(), "summary.md"), "new summary")
	testutil.WriteFile(t, filepath.Join(st.Dir(), "results.json"), `{"experiment": "sim-fct"}`)
	if err := st.Publish("sim-fct", Layout{}); err != nil {
		t.Fatal(err)
	}
	dir, _ := st.Replaced()
	if b, err := os.ReadFile(filepath.Join(dir, "summary.md")); err != nil || string(b) != "the user's notes" {
		t.Errorf("the kept summary.md reads %q, %v; want the user's notes through the link", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "summary.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the kept summary.md: %v, %v; want it still a symlink", fi, err)
	}
	if fi, err := os.Stat(dir); root && (err != nil || fi.Sys().(*syscall.Stat_t).Uid != 65534) {
		t.Errorf("%s: %v, %+v; want it the owner's of out (uid 65534), not root's", dir, err, fi.Sys())
	}
}

// A kept symlink whose target was kept beside it still names that kept file, not the run's file
// of the target's name (review, helper-76: b.md -> a.md, both the user's, read the new a.md).
func TestKeptSymlinkToAKeptFile(t *testing.T) {
	out := t.TempDir()
	testutil.WriteFile(t, filepath.Join(out, "a.md"), "the user's a")
	if err := os.Symlink("a.md", filepath.Join(out, "b.md")); err != nil {
		t.Fatal(err)
	}
	st, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a.md": "new a", "b.md": "new b", "results.json": `{"experiment": "sim-fct"}`} {
		testutil.WriteFile(t, filepath.Join(st.Dir(), name), text)
	}
	if err := st.Publish("sim-fct", Layout{}); err != nil {
		t.Fatal(err)
	}
	dir, _ := st.Replaced()
	if b, err := os.ReadFile(filepath.Join(dir, "b.md")); err != nil || string(b) != "the user's a" {
		t.Errorf("the kept b.md reads %q, %v; want the kept a.md through the link", b, err)
	}
}

// A run that fails or is stopped leaves --out as it was, and the directories it made go.
func TestDiscardLeavesOutAsItWas(t *testing.T) {
	out := t.TempDir()
	earlier := writeEarlierRun(t, out)
	st, err := stageRaw(t, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.Dir(), "stalls.csv"), []byte("new stalls"), 0o644); err != nil {
		t.Fatal(err)
	}
	st.Discard()
	if got := testutil.DirContents(t, out); !maps.Equal(got, earlier) {
		t.Errorf("after discarding:\n got %v\nwant %v", got, earlier)
	}
	root := t.TempDir()
	st, err = stageRaw(t, filepath.Join(root, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	st.Discard()
	if got := testutil.DirContents(t, root); len(got) != 0 {
		t.Errorf("a discarded run into a new a/b left %v", got)
	}
}

// A publish that cannot move the run in deletes nothing: the earlier run is put back as it was, and
// the new run is kept under a visible name that the error gives (review, helper-56: deleting the
// earlier run first, a move that failed lost both). Here the user has a directory where the run
// has a plot of that name.
func TestPublishThatCannotMoveDeletesNothing(t *testing.T) {
	out := t.TempDir()
	earlier := writeEarlierRun(t, out)
	testutil.WriteFile(t, filepath.Join(out, "fig11.png", "keep.txt"), "the user's")
	earlier["fig11.png"], earlier["fig11.png/keep.txt"] = "<dir>", "the user's"
	st, err := stageRaw(t, out)
	if err != nil {
		t.Fatal(err)
	}
	staged := map[string]string{"results.json": `{"experiment": "fan-in", "files": ["results.json", "fig11.png", "samples.csv"]}`,
		"fig11.png": "new plot", "samples.csv": "new samples"}
	for name, text := range staged {
		testutil.WriteFile(t, filepath.Join(st.Dir(), name), text)
	}
	err = st.Publish("fan-in", testbedLayout)
	st.Discard() // as run does after a failed publish: the kept run stays
	if err == nil || !strings.Contains(err.Error(), "is there already as a directory") || !strings.Contains(err.Error(), "kept in") {
		t.Fatalf("publish over the user's fig11.png/: %v; want a refusal naming the clash and where the run is kept", err)
	}
	got := testutil.DirContents(t, out)
	kept, _ := filepath.Glob(filepath.Join(out, "unpublished-*"))
	if len(kept) != 1 || !strings.Contains(err.Error(), kept[0]) {
		t.Fatalf("kept runs %v; want one, named in %q", kept, err)
	}
	for name, text := range staged {
		if rel := filepath.Join(filepath.Base(kept[0]), name); got[rel] != text {
			t.Errorf("the kept run's %s: %q, want %q", name, got[rel], text)
		}
		delete(got, filepath.Join(filepath.Base(kept[0]), name))
	}
	delete(got, filepath.Base(kept[0]))
	delete(got, filepath.Join(filepath.Base(kept[0]), "raw"))
	if !maps.Equal(got, earlier) {
		t.Errorf("besides the kept run, out holds\n %v\nwant the earlier run as it was\n %v", got, earlier)
	}
}

// A staging directory whose run died (SIGKILL) is removed by the next run into the same --out; one
// of a run that still runs, and anything not named by a pid, stays.
func TestStaleStagingOfADeadRunIsSwept(t *testing.T) {
	out := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{
		fmt.Sprintf("%s%d-1", StagingPrefix, dead.ProcessState.Pid()): false,
		fmt.Sprintf("%s%d-2", StagingPrefix, os.Getpid()):             true,
		StagingPrefix + "4108581710":                                  true,
	}
	for name := range names {
		testutil.WriteFile(t, filepath.Join(out, name, "raw", "x.csv"), "x")
	}
	// A run in another pid namespace (a container sharing the directory): its pid names no
	// process here, but it holds its staging directory's lock.
	elsewhere := fmt.Sprintf("%s%d-3", StagingPrefix, dead.ProcessState.Pid())
	testutil.WriteFile(t, filepath.Join(out, elsewhere, "raw", "x.csv"), "x")
	lock, err := lockDir(filepath.Join(out, elsewhere))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	names[elsewhere] = true
	// A run before the host's last boot, whose pid now names a live process (this one): after a
	// reboot the pid check alone kept it for good.
	beforeBoot := fmt.Sprintf("%s%d-4", StagingPrefix, os.Getpid())
	testutil.WriteFile(t, filepath.Join(out, beforeBoot, "raw", "x.csv"), "x")
	long := bootTime().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(out, beforeBoot), long, long); err != nil {
		t.Fatal(err)
	}
	names[beforeBoot] = false
	st, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	for name, stays := range names {
		if _, err := os.Stat(filepath.Join(out, name)); (err == nil) != stays {
			t.Errorf("%s: there %v, want %v", name, err == nil, stays)
		}
	}
}

// A move into out that fails after others were made (an immutable file, a mount point: review,
// helper-57) moves every one back: the earlier run is whole in out again, and the new run is kept
// whole under its own name; it left the earlier run hidden and the new one split.
func TestPublishThatFailsMidwayMovesEverythingBack(t *testing.T) {
	out := t.TempDir()
	earlier := writeEarlierRun(t, out)
	st, err := stageRaw(t, out)
	if err != nil {
		t.Fatal(err)
	}
	staged := map[string]string{"results.json": `{"experiment": "fan-in", "files": ["results.json", "samples.csv", "summary.md"]}`,
		"samples.csv": "new samples", "summary.md": "new summary", "raw/x.csv": "new raw"}
	for name, text := range staged {
		testutil.WriteFile(t, filepath.Join(st.Dir(), name), text)
	}
	failMovesOf(t, "summary.md")
	err = st.Publish("fan-in", testbedLayout)
	st.Discard()
	kept, _ := filepath.Glob(filepath.Join(out, "unpublished-*"))
	if err == nil || len(kept) != 1 || !strings.Contains(err.Error(), "kept in "+kept[0]) {
		t.Fatalf("a publish whose summary.md cannot move: %v, kept %v; want the run kept and named", err, kept)
	}
	got := testutil.DirContents(t, out)
	for name, text := range staged {
		if rel := filepath.Join(filepath.Base(kept[0]), name); got[rel] != text {
			t.Errorf("the kept run's %s: %q, want %q", name, got[rel], text)
		}
	}
	for rel := range got {
		if strings.HasPrefix(rel, filepath.Base(kept[0])) {
			delete(got, rel)
		}
	}
	if !maps.Equal(got, earlier) {
		t.Errorf("besides the kept run, out holds\n %v\nwant the earlier run as it was\n %v", got, earlier)
	}
}

// Two runs that keep their files in one second get names of their own: the second replaced
// nothing, and neither is a name the sweep of dead runs' staging removes.
func TestKeptRunsNeverShareAName(t *testing.T) {
	out := t.TempDir()
	var names []string
	for i := 0; i < 3; i++ {
		st, err := Stage(out)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(st.Dir(), "samples.csv"), fmt.Sprint(i))
		var k *keptError
		if err := st.Keep(errors.New("plot")); !errors.As(err, &k) || k.unnamed {
			t.Fatalf("keep: %v; want the run kept under a name of its own", err)
		}
		names = append(names, k.dir)
	}
	for i, dir := range names {
		if b, err := os.ReadFile(filepath.Join(dir, "samples.csv")); err != nil || string(b) != fmt.Sprint(i) {
			t.Errorf("kept run %d in %s: %q, %v", i, dir, b, err)
		}
		if strings.HasPrefix(filepath.Base(dir), StagingPrefix) {
			t.Errorf("kept as %s, a name the sweep removes", dir)
		}
	}
}

// A file of out that a staged file replaces is moved aside too, so that a publish that fails puts
// it back (review, helper-58: the user's figure of the run's name was renamed over and lost); a
// directory of the user's where the run has raw/ is not merged into, which could not be undone.
func TestFailedPublishPutsTheUsersFilesBack(t *testing.T) {
	out := t.TempDir()
	testutil.WriteFile(t, filepath.Join(out, "fig11.png"), "the user's figure")
	testutil.WriteFile(t, filepath.Join(out, "notes", "raw.txt"), "the user's notes")
	before := testutil.DirContents(t, out)
	st, err := stageRaw(t, out)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"results.json": `{"experiment": "fan-in"}`, "fig11.png": "new plot", "summary.md": "new summary"} {
		testutil.WriteFile(t, filepath.Join(st.Dir(), name), text)
	}
	failMovesOf(t, "summary.md")
	err = st.Publish("fan-in", testbedLayout)
	st.Discard()
	k, ok := Kept(err)
	if !ok {
		t.Fatalf("a publish whose summary.md cannot move: %v; want the run kept", err)
	}
	got := testutil.DirContents(t, out)
	for rel := range got {
		if strings.HasPrefix(rel, filepath.Base(k)) {
			delete(got, rel)
		}
	}
	if !maps.Equal(got, before) {
		t.Errorf("besides the kept run, out holds\n %v\nwant the user's files as they were\n %v", got, before)
	}

	// The user's raw/ where the run has one: refused before anything moves, the run kept.
	out = t.TempDir()
	testutil.WriteFile(t, filepath.Join(out, "raw", "x.csv"), "the user's x")
	st, err = stageRaw(t, out)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(st.Dir(), "raw", "x.csv"), "new x")
	testutil.WriteFile(t, filepath.Join(st.Dir(), "results.json"), `{"experiment": "fan-in"}`)
	testutil.Set(t, &renameIn, os.Rename)
	err = st.Publish("fan-in", testbedLayout)
	st.Discard()
	if _, ok := Kept(err); !ok || !strings.Contains(err.Error(), "is there already as a directory") {
		t.Fatalf("a publish over the user's raw/: %v; want it refused and the run kept", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "raw", "x.csv")); string(b) != "the user's x" {
		t.Errorf("the user's raw/x.csv holds %q", b)
	}
}

// failMovesOf makes a publish's move of the entry called name fail, as an immutable file would,
// for the rest of the test; every other move is made.
func failMovesOf(t *testing.T, name string) {
	testutil.Set(t, &renameIn, func(from, to string) error {
		if filepath.Base(from) == name {
			return fs.ErrPermission
		}
		return os.Rename(from, to)
	})
}

// The earlier run's files that a publish killed half-way left aside (hidden, in .qjump-earlier-*)
// get a visible name at the next run into out, where the user finds them; those of a publish that
// lives, which holds its lock, are left alone.
func TestEarlierRunLeftAsideIsRecovered(t *testing.T) {
	out := t.TempDir()
	testutil.WriteFile(t, filepath.Join(out, asidePrefix+"1", "results.json"), `{"experiment": "fan-in"}`)
	testutil.WriteFile(t, filepath.Join(out, asidePrefix+"2", "results.json"), `{"experiment": "ptp"}`)
	lock, err := lockDir(filepath.Join(out, asidePrefix+"2"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	st, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	recovered := EntriesWithPrefix(out, recoveredPrefix)
	if len(recovered) != 1 || results.ExperimentIn(filepath.Join(out, recovered[0])) != "fan-in" {
		t.Errorf("recovered %v; want the dead publish's fan-in run under %s*", recovered, recoveredPrefix)
	}
	if left := EntriesWithPrefix(out, asidePrefix); len(left) != 1 || left[0] != asidePrefix+"2" {
		t.Errorf("left aside %v; want only the living publish's", left)
	}
}

// Runs into one directory at once never take each other's directories for a dead run's: a
// publish's aside and a run's staging appear under their names already locked (makeLocked).
// Made first and locked after, another run's sweep in between renamed a live publish's aside
// earlier-run-TIME and the publish failed (review, helper-67: 45 of 5,000 publishes).
func TestConcurrentRunsTakeNothingOfEachOther(t *testing.T) {
	out := t.TempDir()
	stop := make(chan struct{})
	swept := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				swept <- nil
				return
			default:
			}
			st, err := Stage(out)
			if err != nil {
				swept <- err
				return
			}
			st.Discard()
		}
	}()
	deadline := time.Now().Add(time.Second)
	runs := 0
	for ; time.Now().Before(deadline) && runs < 2000; runs++ {
		st, err := Stage(out)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(st.Dir(), "fig.png"), "plot")
		testutil.WriteFile(t, filepath.Join(st.Dir(), "flows", "a.csv"), "flows")
		testutil.WriteFile(t, filepath.Join(st.Dir(), "results.json"), `{"experiment": "sim-fig9", "files": ["results.json", "fig.png", "flows/a.csv"]}`)
		err = st.Publish("sim-fig9", Layout{Merge: []string{"flows"}})
		st.Discard()
		if err != nil {
			close(stop)
			t.Fatalf("publish %d beside another run's sweeps: %v", runs, err)
		}
	}
	close(stop)
	if err := <-swept; err != nil {
		t.Fatalf("the other run: %v", err)
	}
	if got := EntriesWithPrefix(out, recoveredPrefix); len(got) != 0 {
		t.Errorf("after %d publishes, %d directories taken for a dead publish's: %v", runs, len(got), got[:min(len(got), 3)])
	}
	if got := EntriesWithPrefix(out, "."); len(got) != 0 {
		t.Errorf("after %d publishes, hidden entries left: %v", runs, got)
	}
}

// One publish into out at a time: a publish that starts while another moves files waits, so the
// one that fails and moves its earlier run back cannot put it over what the other published
// (review, helper-68: C was told it was published, and out held A again).
func TestPublishesIntoOneDirectoryTakeTurns(t *testing.T) {
	out := t.TempDir()
	stageRun := func(name string) *Staging {
		st, err := Stage(out)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(st.Dir(), "fig.png"), name)
		testutil.WriteFile(t, filepath.Join(st.Dir(), "results.json"), `{"experiment": "x", "files": ["results.json", "fig.png"]}`)
		return st
	}
	a := stageRun("A")
	if err := a.Publish("x", Layout{}); err != nil {
		t.Fatal(err)
	}
	a.Discard()
	b, c := stageRun("B"), stageRun("C")
	defer b.Discard()
	defer c.Discard()
	cDone := make(chan error, 1)
	waited := false
	testutil.Set(t, &renameIn, func(from, to string) error {
		if filepath.Base(from) != "fig.png" || !strings.HasPrefix(from, b.Dir()) {
			return os.Rename(from, to)
		}
		// B has A aside and is moving in: C publishes now, and must wait for B.
		go func() { cDone <- c.Publish("x", Layout{}) }()
		select {
		case err := <-cDone:
			t.Errorf("C published (%v) while B was moving its files", err)
			cDone <- err
		case <-time.After(200 * time.Millisecond):
			waited = true
		}
		return fs.ErrPermission // B fails: A goes back
	})
	if _, ok := Kept(b.Publish("x", Layout{})); !ok {
		t.Fatal("B's failed publish kept nothing")
	}
	if err := <-cDone; err != nil {
		t.Fatalf("C, after B: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "fig.png")); !waited || string(got) != "C" {
		t.Errorf("C waited %v; out's fig.png is %q, want C's", waited, got)
	}
}

// A publish whose staging directory is gone publishes nothing and leaves the earlier run: it moved
// the earlier run aside, found nothing to move in, and deleted it (review, helper-69). One whose
// out was replaced during the run is refused, not published into the new one.
func TestPublishOfNothingKeepsTheEarlierRun(t *testing.T) {
	out := t.TempDir()
	earlier := writeEarlierRun(t, out)
	st, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	if err := os.RemoveAll(st.Dir()); err != nil {
		t.Fatal(err)
	}
	if err := st.Publish("fan-in", testbedLayout); err == nil || !strings.Contains(err.Error(), "is gone or empty") {
		t.Errorf("a publish of a staging directory that is gone: %v", err)
	}
	if got := testutil.DirContents(t, out); !maps.Equal(got, earlier) {
		t.Errorf("out after it:\n %v\nwant the earlier run as it was\n %v", got, earlier)
	}

	moved := t.TempDir()
	st2, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Discard()
	testutil.WriteFile(t, filepath.Join(st2.Dir(), "results.json"), `{"experiment": "fan-in"}`)
	if err := os.Rename(out, filepath.Join(moved, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := st2.Publish("fan-in", testbedLayout); err == nil {
		t.Error("a publish into an out replaced during the run succeeded")
	}
	if got := testutil.DirContents(t, out); len(got) != 0 {
		t.Errorf("the new out holds %v", got)
	}
}

// A publish waiting for another's lock on out, while out is moved away and replaced by another
// directory of its name, is refused once it has the lock: the locked directory is not out any
// more (lockOut's SameFile check).
func TestPublishIntoAnOutReplacedWhileItWaits(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	st, err := Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	testutil.WriteFile(t, filepath.Join(st.Dir(), "results.json"), `{"experiment": "x"}`)
	held, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(held.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- st.Publish("x", Layout{}) }()
	time.Sleep(100 * time.Millisecond) // the publish waits for the lock
	if err := os.Rename(out, filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	held.Close()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "was moved or replaced") {
		t.Errorf("a publish into an out replaced while it waited: %v", err)
	}
	if got := testutil.DirContents(t, out); len(got) != 0 {
		t.Errorf("the new out holds %v", got)
	}
}
