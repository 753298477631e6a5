package experiment

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
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
