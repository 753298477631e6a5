package results

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A write that fails half-way leaves the old file whole and no temporary file behind.
func TestWriteFileAtomicKeepsOldFileOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half of the new")
		return errors.New("interrupted")
	})
	if err == nil {
		t.Fatal("no error from a failed write")
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("file is %q after a failed write, want the old one", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries after a failed write, want only the old file", len(ents))
	}
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(b) != "new\n" || st.Mode().Perm() != 0o644 {
		t.Errorf("after a write: %q, mode %v; want \"new\\n\", 0644", b, st.Mode().Perm())
	}
}

// A run judged against no target has no empty Targets section in summary.md.
func TestMarkdownLeavesOutEmptyTargets(t *testing.T) {
	md := View{Header: Header{Title: "t"}}.Markdown()
	if strings.Contains(md, "## Targets") {
		t.Errorf("summary.md of a run with no targets has a Targets heading:\n%s", md)
	}
	md = View{Header: Header{Title: "t"}, Outcome: Outcome{Targets: []Target{{Name: "a", Criterion: "c"}}}}.Markdown()
	if !strings.Contains(md, "## Targets") {
		t.Errorf("summary.md of a run with a target lacks the Targets heading:\n%s", md)
	}
}
