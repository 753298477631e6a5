package experiment

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/results"
	"github.com/qjump-net/qjump/internal/sim/topology"
	"github.com/qjump-net/qjump/internal/testutil"
)

// fakeSweep is a Fig. 9 sweep of both workloads at two loads and two schemes whose points are
// made up, not simulated: a small flow at twice its ideal and a large one at three times.
func fakeSweep() (Fig9Config, []*FCTResult) {
	c := Fig9Config{Workloads: []string{"websearch", "datamining"}, Loads: []float64{0.3, 0.6}, Schemes: []Scheme{TCP, QJump},
		Flows: map[string]int{"websearch": 2, "datamining": 2}, Seed: 1, Fabric: topology.PaperFabric()}
	var points []*FCTResult
	for _, w := range c.Workloads {
		for _, l := range c.Loads {
			for _, s := range c.Schemes {
				points = append(points, &FCTResult{Scheme: s, Workload: w, Load: l, Seed: 1, Flows: []FlowRow{
					{ID: 0, Src: 0, Dst: 1, Size: 1000, StartUs: 1, Done: true, FCTUs: 20, IdealUs: 10},
					{ID: 1, Src: 2, Dst: 3, Size: 20e6, StartUs: 2, Done: true, FCTUs: 60000, IdealUs: 20000},
				}})
			}
		}
	}
	return c, points
}

// publishFakeSweep publishes a sweep of points into out (Publish), interrupted if stopped says why,
// and returns its document and the directory it is in.
func publishFakeSweep(t *testing.T, out string, c Fig9Config, points []*FCTResult, stopped string) (*FCTDocument, string) {
	t.Helper()
	h := results.Header{Experiment: ExperimentFig9, Title: "t", Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Interrupted: stopped}
	doc := NewFCTDocument(h, c, points)
	dir, err := Publish(out, ExperimentFig9, stopped != "", func(dir string) error { return WriteFCT(dir, doc, points) }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return doc, dir
}

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// A rerun into the directory of a larger run replaces it: the panels it does not draw and the
// flows files of points it did not run are gone, the user's own files stay (in flows/ too), and
// results.json names exactly the run's files. Before, the earlier run's fig9d..f.png and 4
// data-mining flows files stayed beside a results.json of the web-search points alone.
func TestRerunLeavesNoStaleFile(t *testing.T) {
	out := t.TempDir()
	c, points := fakeSweep()
	publishFakeSweep(t, out, c, points, "")
	mine := []string{"notes.txt", "fig9-mine.png", filepath.Join("flows", "notes.csv"), filepath.Join("flows", "websearch-old-tcp.csv")}
	for _, f := range mine {
		testutil.WriteFile(t, filepath.Join(out, f), "mine\n")
	}
	// The rerun is of the web-search points alone.
	web := c
	web.Workloads = []string{"websearch"}
	doc, dir := publishFakeSweep(t, out, web, points[:4], "")
	if dir != out {
		t.Fatalf("a complete rerun was published in %s, want %s", dir, out)
	}
	want := []string{"fig9-mine.png", "fig9a.png", "fig9b.png", "fig9c.png", "flows", "notes.txt", "results.json", "summary.md"}
	if got := names(t, out); !slices.Equal(got, want) {
		t.Errorf("after the rerun the directory holds %v, want %v", got, want)
	}
	wantFlows := []string{"notes.csv", "websearch-0.3-qjump.csv", "websearch-0.3-tcp.csv", "websearch-0.6-qjump.csv", "websearch-0.6-tcp.csv", "websearch-old-tcp.csv"}
	if got := names(t, filepath.Join(out, "flows")); !slices.Equal(got, wantFlows) {
		t.Errorf("after the rerun flows/ holds %v, want %v", got, wantFlows)
	}
	for _, f := range doc.Files {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("results.json names %s: %v", f, err)
		}
	}
	// A report does not keep a panel its results.json has no points for either.
	testutil.WriteFile(t, filepath.Join(out, "fig9e.png"), "stale")
	if _, err := Report(out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "fig9e.png")); !os.IsNotExist(err) {
		t.Errorf("report kept a stale fig9e.png (%v)", err)
	}
	for _, f := range mine {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the user's %s: %v", f, err)
		}
	}
}

// A sweep stopped early never replaces an earlier run: it is kept beside it, whole, and the
// earlier run stays as it was (before, the complete 24-point run in --out was replaced by the 14
// points a rerun stopped with Ctrl-C had finished).
func TestStoppedRerunKeepsTheCompleteRun(t *testing.T) {
	out := t.TempDir()
	c, points := fakeSweep()
	publishFakeSweep(t, out, c, points, "")
	complete := testutil.DirContents(t, out)
	_, dir := publishFakeSweep(t, out, c, points[:3], "interrupt signal received after 3 of 8 points")
	if filepath.Dir(dir) != out || !strings.HasPrefix(filepath.Base(dir), "unpublished-") {
		t.Fatalf("the stopped rerun is in %s; want it kept beside the complete run, in %s/unpublished-TIME", dir, out)
	}
	got := testutil.DirContents(t, out)
	for rel := range got {
		if rel == filepath.Base(dir) || strings.HasPrefix(rel, filepath.Base(dir)+string(filepath.Separator)) {
			delete(got, rel)
		}
	}
	if !maps.Equal(got, complete) {
		t.Errorf("beside the kept run, out holds\n %v\nwant the complete run as it was\n %v", got, complete)
	}
	var kept FCTDocument
	if err := results.ReadJSON(filepath.Join(dir, "results.json"), &kept); err != nil || len(kept.Points) != 3 || kept.Interrupted == "" {
		t.Fatalf("the kept run's record: %d points, interrupted %q, %v; want the 3 points, interrupted", len(kept.Points), kept.Interrupted, err)
	}
	for _, f := range kept.Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the kept run's results.json names %s: %v", f, err)
		}
	}

	// Over a partial run, a partial rerun is kept beside it too: the one stopped later may have
	// fewer points (review, helper-63: 43 points lost to a rerun stopped after 15). A complete
	// run replaces it.
	partial := t.TempDir()
	publishFakeSweep(t, partial, c, points[:5], "stopped")
	if _, dir := publishFakeSweep(t, partial, c, points[:2], "stopped"); filepath.Dir(dir) != partial {
		t.Errorf("a partial run over a partial one went to %s, want beside it in %s", dir, partial)
	}
	var earlier FCTDocument
	if err := results.ReadJSON(filepath.Join(partial, "results.json"), &earlier); err != nil || len(earlier.Points) != 5 {
		t.Fatalf("the earlier partial run: %d points, %v; want its 5", len(earlier.Points), err)
	}
	if _, dir := publishFakeSweep(t, partial, c, points, ""); dir != partial || len(names(t, filepath.Join(partial, "flows"))) != len(points) {
		t.Errorf("a complete run over a partial one went to %s, with flows %v", dir, names(t, filepath.Join(partial, "flows")))
	}
	// Into a directory without a run, a partial run is published.
	fresh := t.TempDir()
	if _, dir := publishFakeSweep(t, fresh, c, points[:2], "stopped"); dir != fresh {
		t.Errorf("a partial run into an empty directory went to %s, want %s", dir, fresh)
	}
}

// A plot that cannot be written (here a directory stands where fig9b.png goes) fails the write,
// but results.json and summary.md are there already, so sim report can redraw: before, the plots
// came first and their failure lost the run's record.
func TestResultsWrittenWhenAPlotFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "fig9b.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, points := fakeSweep()
	doc := NewFCTDocument(results.Header{Experiment: ExperimentFig9, Title: "t"}, c, points)
	if err := WriteFCT(dir, doc, points); err == nil {
		t.Fatal("WriteFCT succeeded with a directory where fig9b.png goes")
	}
	var back FCTDocument
	if err := results.ReadJSON(filepath.Join(dir, "results.json"), &back); err != nil {
		t.Fatalf("results.json after a failed plot: %v", err)
	}
	if len(back.Points) != len(points) || len(back.Series) != 3*len(points) {
		t.Errorf("results.json has %d points and %d series, want %d and %d", len(back.Points), len(back.Series), len(points), 3*len(points))
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.md")); err != nil {
		t.Errorf("summary.md after a failed plot: %v", err)
	}
}

// Only the names of the panels an experiment draws are its own.
func TestOwnFileNames(t *testing.T) {
	for name, want := range map[string]bool{
		"fanin-144.png": true, "fanin-60-aligned.png": true, "fanin-60-straddled.png": true, "fanin-12-random-straddled.png": true,
		"fanin-.png": false, "fanin-060.png": false, "fanin-60-mine.png": false, "fanin-60.csv": false, "fig9a.png": false,
		"fanin-2024.png": false, "fanin-61.png": false, "fanin-0.png": false, // host counts fan-in does not run
	} {
		if got := isFanInPanel(name); got != want {
			t.Errorf("isFanInPanel(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{"fig9a.png": true, "fig9f.png": true, "fig9g.png": false, "fig9-mine.png": false} {
		if got := isFig9Panel(name); got != want {
			t.Errorf("isFig9Panel(%q) = %v, want %v", name, got, want)
		}
	}
}

// A fan-in run or report removes the panels of an earlier run it does not draw (another host
// count, a sweep not run), and keeps the user's files.
func TestFanInRewriteLeavesNoStalePanel(t *testing.T) {
	c := DefaultFanIn(24, true)
	c.Factors, c.Probes = []float64{1, 3}, 1000
	res, err := RunFanIn(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	plant := func(dir string, earlier bool) {
		for _, f := range []string{"fanin-144.png", "fanin-60-aligned.png", "fanin-notes.png"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("earlier"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if earlier {
			h := results.Header{Experiment: ExperimentFanIn, Title: "an earlier run"}
			if err := results.WriteJSON(filepath.Join(dir, "results.json"), h); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Without an earlier run's results.json, files of a panel's name are the user's: they stay.
	fresh := t.TempDir()
	plant(fresh, false)
	if err := WriteFanIn(fresh, NewFanInDocument(results.Header{Experiment: ExperimentFanIn, Title: "t"}, c, []*FanInResult{res})); err != nil {
		t.Fatal(err)
	}
	kept := []string{"fanin-144.png", "fanin-24.png", "fanin-60-aligned.png", "fanin-notes.png", "results.json", "summary.md"}
	if got := names(t, fresh); !slices.Equal(got, kept) {
		t.Errorf("a directory without a run holds %v after the run, want %v", got, kept)
	}

	dir := t.TempDir()
	plant(dir, true)
	doc := NewFanInDocument(results.Header{Experiment: ExperimentFanIn, Title: "t"}, c, []*FanInResult{res})
	if err := WriteFanIn(dir, doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"fanin-24.png", "fanin-notes.png", "results.json", "summary.md"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
	if !slices.Contains(doc.Files, "fanin-24.png") || strings.Contains(strings.Join(doc.Files, " "), "144") {
		t.Errorf("results.json names %v", doc.Files)
	}
}

// A sweep into a directory that holds no earlier run (no results.json of fig9) removes nothing
// but the files it writes itself: a flows file of a sweep's name there is the user's.
func TestSweepIntoAFreshDirectoryRemovesNothing(t *testing.T) {
	out := t.TempDir()
	mine := filepath.Join(out, "flows", "websearch-0.8-tcp.csv")
	testutil.WriteFile(t, mine, "mine")
	c, points := fakeSweep()
	publishFakeSweep(t, out, c, points, "")
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a sweep into a directory without a run removed %s: %v", mine, err)
	}
}

// A stopped run that could not even be kept (its staging directory gone) is an error, not a
// success kept in "" (review, helper-70).
func TestStoppedRunThatCannotBeKeptIsAnError(t *testing.T) {
	out := t.TempDir()
	testutil.WriteFile(t, filepath.Join(out, "results.json"), `{"experiment": "sim-fan-in"}`)
	dir, err := Publish(out, ExperimentFanIn, true, func(dir string) error {
		testutil.WriteFile(t, filepath.Join(dir, "results.json"), `{"experiment": "sim-fan-in", "interrupted": "stopped"}`)
		return os.RemoveAll(dir)
	}, io.Discard)
	if err == nil || dir != "" {
		t.Errorf("Publish of a stopped run whose files are gone: dir %q, err %v; want an error", dir, err)
	}
}
