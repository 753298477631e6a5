package results

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
