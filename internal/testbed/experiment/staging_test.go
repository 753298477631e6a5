package experiment

import (
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/qjump-net/qjump/internal/publish"
	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/testutil"
)

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
		testutil.WriteFile(t, filepath.Join(out, name), text)
	}
	st, err := publish.Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"sweep/results.json": sweepRun, "sweep/samples.csv": "new", "confirm-f5=3/results.json": sweepRun} {
		testutil.WriteFile(t, filepath.Join(st.Dir(), name), text)
	}
	if err := publishAdvice(st, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"notes.txt": "the user's", "confirm-f5=9": "<dir>", "confirm-f5=9/notes.txt": "the user's",
		"sweep": "<dir>", "sweep/results.json": sweepRun, "sweep/samples.csv": "new",
		"confirm-f5=3": "<dir>", "confirm-f5=3/results.json": sweepRun}
	if got := testutil.DirContents(t, out); !maps.Equal(got, want) {
		t.Errorf("after publishing the advice:\n got %v\nwant %v", got, want)
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
	// A confirming run with faults names where it is kept too, not where it would have been.
	err := faultsError(&Results{Outcome: results.Outcome{Faults: []string{"lost 3 of 10"}}}, "/o/confirm-f5=2")
	movedTo(err, "/o", "/o/unpublished-1")
	if !errors.Is(err, ErrFaults) || err.Error() != ErrFaults.Error()+" in /o/unpublished-1/confirm-f5=2: lost 3 of 10" {
		t.Errorf("faults error after the move: %v", err)
	}
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

// An --out whose name reads as a pattern (runs[1]) is no pattern: the earlier advise's confirming
// runs there are replaced too (review, helper-58: filepath.Glob matched none of them).
func TestPublishAdviceInADirectoryNamedLikeAPattern(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs[1]")
	sweepRun := `{"experiment": "memcached-sweep"}`
	testutil.WriteFile(t, filepath.Join(out, "sweep", "results.json"), sweepRun)
	testutil.WriteFile(t, filepath.Join(out, "confirm-f5=2", "results.json"), sweepRun)
	st, err := publish.Stage(out)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(st.Dir(), "sweep", "results.json"), sweepRun)
	if err := publishAdvice(st, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "confirm-f5=2")); err == nil {
		t.Errorf("the earlier advise's confirm-f5=2 stayed beside the new sweep")
	}
}
