package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testutil"
)

// A run that finishes replaces the earlier run of its experiment: the files that run listed and
// its raw/ go, even those the new run does not write; the user's files stay; nothing is staged.
func TestPublishReplacesTheEarlierRun(t *testing.T) {
	out := t.TempDir()
	writeEarlierRun(t, out, "fan-in")
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := stage(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"results.json": `{"experiment": "fan-in", "files": ["results.json", "fig11.png"]}`,
		"fig11.png": "new plot", "raw/f7=1-arrivals.csv": "new arrivals"} {
		if err := os.WriteFile(filepath.Join(st.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.publish("fan-in"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"notes.txt": "the user's", "results.json": `{"experiment": "fan-in", "files": ["results.json", "fig11.png"]}`,
		"fig11.png": "new plot", "raw": "<dir>", "raw/f7=1-arrivals.csv": "new arrivals"}
	if got := dirContents(t, out); !maps.Equal(got, want) {
		t.Errorf("after publishing:\n got %v\nwant %v", got, want)
	}
}

// A run that fails or is stopped leaves --out as it was, and the directories it made go.
func TestDiscardLeavesOutAsItWas(t *testing.T) {
	out := t.TempDir()
	earlier := writeEarlierRun(t, out, "fan-in")
	st, err := stage(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.dir, "stalls.csv"), []byte("new stalls"), 0o644); err != nil {
		t.Fatal(err)
	}
	st.discard()
	if got := dirContents(t, out); !maps.Equal(got, earlier) {
		t.Errorf("after discarding:\n got %v\nwant %v", got, earlier)
	}
	root := t.TempDir()
	st, err = stage(filepath.Join(root, "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	st.discard()
	if got := dirContents(t, root); len(got) != 0 {
		t.Errorf("a discarded run into a new a/b left %v", got)
	}
}

// An advise's runs are published together: the earlier advise's sweep/ and confirming runs go
// (one that chose another factor too), the new ones come in whole, and what is not an advise's
// run stays. Published one by one, a rerun stopped after its sweep left the new sweep/ beside the
// earlier advise's confirm-f5=*/.
func TestPublishAdviceReplacesTheEarlierAdvice(t *testing.T) {
	out := t.TempDir()
	sweepRun := `{"experiment": "memcached-sweep"}`
	for name, text := range map[string]string{
		"sweep/results.json": sweepRun, "sweep/raw/old.csv": "old", "confirm-f5=2/results.json": sweepRun,
		"confirm-f5=9/notes.txt": "the user's", "notes.txt": "the user's",
	} {
		writeFile(t, filepath.Join(out, name), text)
	}
	st, err := stageEmpty(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"sweep/results.json": sweepRun, "sweep/samples.csv": "new", "confirm-f5=3/results.json": sweepRun} {
		writeFile(t, filepath.Join(st.dir, name), text)
	}
	if err := st.publishAdvice(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"notes.txt": "the user's", "confirm-f5=9": "<dir>", "confirm-f5=9/notes.txt": "the user's",
		"sweep": "<dir>", "sweep/results.json": sweepRun, "sweep/samples.csv": "new",
		"confirm-f5=3": "<dir>", "confirm-f5=3/results.json": sweepRun}
	if got := dirContents(t, out); !maps.Equal(got, want) {
		t.Errorf("after publishing the advice:\n got %v\nwant %v", got, want)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A publish that cannot move the run in deletes nothing: the earlier run is put back as it was, and
// the new run is kept under a visible name that the error gives (review, helper-56: deleting the
// earlier run first, a move that failed lost both). Here the user has a directory where the run
// has a plot of that name.
func TestPublishThatCannotMoveDeletesNothing(t *testing.T) {
	out := t.TempDir()
	earlier := writeEarlierRun(t, out, "fan-in")
	writeFile(t, filepath.Join(out, "fig11.png", "keep.txt"), "the user's")
	earlier["fig11.png"], earlier["fig11.png/keep.txt"] = "<dir>", "the user's"
	st, err := stage(out)
	if err != nil {
		t.Fatal(err)
	}
	staged := map[string]string{"results.json": `{"experiment": "fan-in", "files": ["results.json", "fig11.png", "samples.csv"]}`,
		"fig11.png": "new plot", "samples.csv": "new samples"}
	for name, text := range staged {
		writeFile(t, filepath.Join(st.dir, name), text)
	}
	err = st.publish("fan-in")
	st.discard() // as run does after a failed publish: the kept run stays
	if err == nil || !strings.Contains(err.Error(), "is there already as a directory") || !strings.Contains(err.Error(), "kept in") {
		t.Fatalf("publish over the user's fig11.png/: %v; want a refusal naming the clash and where the run is kept", err)
	}
	got := dirContents(t, out)
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
		fmt.Sprintf("%s%d-1", stagingPrefix, dead.ProcessState.Pid()): false,
		fmt.Sprintf("%s%d-2", stagingPrefix, os.Getpid()):             true,
		stagingPrefix + "4108581710":                                  true,
	}
	for name := range names {
		writeFile(t, filepath.Join(out, name, "raw", "x.csv"), "x")
	}
	st, err := stageEmpty(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.discard()
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
	earlier := writeEarlierRun(t, out, "fan-in")
	st, err := stage(out)
	if err != nil {
		t.Fatal(err)
	}
	staged := map[string]string{"results.json": `{"experiment": "fan-in", "files": ["results.json", "samples.csv", "summary.md"]}`,
		"samples.csv": "new samples", "summary.md": "new summary", "raw/x.csv": "new raw"}
	for name, text := range staged {
		writeFile(t, filepath.Join(st.dir, name), text)
	}
	failMovesOf(t, "summary.md")
	err = st.publish("fan-in")
	st.discard()
	kept, _ := filepath.Glob(filepath.Join(out, "unpublished-*"))
	if err == nil || len(kept) != 1 || !strings.Contains(err.Error(), "kept in "+kept[0]) {
		t.Fatalf("a publish whose summary.md cannot move: %v, kept %v; want the run kept and named", err, kept)
	}
	got := dirContents(t, out)
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
		st, err := stageEmpty(out)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(st.dir, "samples.csv"), fmt.Sprint(i))
		var k *keptError
		if err := st.keep(errors.New("plot")); !errors.As(err, &k) || k.unnamed {
			t.Fatalf("keep: %v; want the run kept under a name of its own", err)
		}
		names = append(names, k.dir)
	}
	for i, dir := range names {
		if b, err := os.ReadFile(filepath.Join(dir, "samples.csv")); err != nil || string(b) != fmt.Sprint(i) {
			t.Errorf("kept run %d in %s: %q, %v", i, dir, b, err)
		}
		if m, _ := filepath.Match(stagingPattern, filepath.Base(dir)); m {
			t.Errorf("kept as %s, a name the sweep removes", dir)
		}
	}
}

// An advise that could not publish names its runs where they are kept.
func TestAdviceRelocatesToWhereItsRunsAreKept(t *testing.T) {
	a := &Advice{Sweep: "/o/sweep", Reruns: []string{"/o/confirm-f5=2", "/elsewhere/x"}}
	a.relocate("/o", "/o/unpublished-1")
	if a.Sweep != "/o/unpublished-1/sweep" || a.Reruns[0] != "/o/unpublished-1/confirm-f5=2" || a.Reruns[1] != "/elsewhere/x" {
		t.Errorf("relocated advice: %+v", a)
	}
	(*Advice)(nil).relocate("/o", "/p") // a nil advice has nothing to move
}

// A run kept after its plots failed has its results.json, which finish writes after the plots, so
// that qjump testbed report can rebuild it (review, helper-57); one already written stays.
func TestKeptRunHasItsRecord(t *testing.T) {
	dir := t.TempDir()
	keepRecord(&Results{Header: results.Header{Experiment: "fan-in"}}, dir)
	if got := results.ExperimentIn(dir); got != "fan-in" {
		t.Fatalf("after keepRecord, %s holds a run of %q; want fan-in", dir, got)
	}
	keepRecord(&Results{Header: results.Header{Experiment: "ptp"}}, dir)
	if got := results.ExperimentIn(dir); got != "fan-in" {
		t.Errorf("keepRecord over a written results.json made it %q", got)
	}
}

// A file of out that a staged file replaces is moved aside too, so that a publish that fails puts
// it back (review, helper-58: the user's figure of the run's name was renamed over and lost); a
// directory of the user's where the run has raw/ is not merged into, which could not be undone.
func TestFailedPublishPutsTheUsersFilesBack(t *testing.T) {
	out := t.TempDir()
	writeFile(t, filepath.Join(out, "fig11.png"), "the user's figure")
	writeFile(t, filepath.Join(out, "notes", "raw.txt"), "the user's notes")
	before := dirContents(t, out)
	st, err := stage(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"results.json": `{"experiment": "fan-in"}`, "fig11.png": "new plot", "summary.md": "new summary"} {
		writeFile(t, filepath.Join(st.dir, name), text)
	}
	failMovesOf(t, "summary.md")
	err = st.publish("fan-in")
	st.discard()
	k, ok := Kept(err)
	if !ok {
		t.Fatalf("a publish whose summary.md cannot move: %v; want the run kept", err)
	}
	got := dirContents(t, out)
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
	writeFile(t, filepath.Join(out, "raw", "x.csv"), "the user's x")
	st, err = stage(out)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(st.dir, "raw", "x.csv"), "new x")
	writeFile(t, filepath.Join(st.dir, "results.json"), `{"experiment": "fan-in"}`)
	testutil.Set(t, &renameIn, os.Rename)
	err = st.publish("fan-in")
	st.discard()
	if _, ok := Kept(err); !ok || !strings.Contains(err.Error(), "is there already as a directory") {
		t.Fatalf("a publish over the user's raw/: %v; want it refused and the run kept", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "raw", "x.csv")); string(b) != "the user's x" {
		t.Errorf("the user's raw/x.csv holds %q", b)
	}
}

// An --out whose name reads as a pattern (runs[1]) is no pattern: the earlier advise's confirming
// runs there are replaced too (review, helper-58: filepath.Glob matched none of them).
func TestPublishAdviceInADirectoryNamedLikeAPattern(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs[1]")
	sweepRun := `{"experiment": "memcached-sweep"}`
	writeFile(t, filepath.Join(out, "sweep", "results.json"), sweepRun)
	writeFile(t, filepath.Join(out, "confirm-f5=2", "results.json"), sweepRun)
	st, err := stageEmpty(out)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(st.dir, "sweep", "results.json"), sweepRun)
	if err := st.publishAdvice(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "confirm-f5=2")); err == nil {
		t.Errorf("the earlier advise's confirm-f5=2 stayed beside the new sweep")
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
