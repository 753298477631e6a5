package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The directories MakeDirs made go again, also when MkdirAll failed before making the deepest: it
// stopped at the first that was not there, and left the parents (review, helper-56: --out
// /tmp/x/<300 a's> left /tmp/x).
func TestRemoveMadeDirsPassesOverOnesNeverMade(t *testing.T) {
	root := t.TempDir()
	long := filepath.Join(root, "x", "a", strings.Repeat("a", 300)) // a name too long: MkdirAll fails there
	made, err := MakeDirs(long)
	if err == nil {
		t.Fatalf("MakeDirs of a 300-byte name: no error")
	}
	RemoveMadeDirs(made)
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("after a MakeDirs that failed, %s holds %v; want nothing", root, left)
	}
}

// Clash names an entry that a move cannot replace, before anything is moved.
func TestClashNamesWhatAMoveCannotReplace(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(src, "raw"), filepath.Join(dst, "plot.png"), filepath.Join(src, "same"), filepath.Join(dst, "same")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "plot.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Clash(src, dst); err == nil || !strings.Contains(err.Error(), "plot.png is there already as a directory, where the run has a file") {
		t.Errorf("a file over a directory: %v", err)
	}
	if err := os.Remove(filepath.Join(dst, "plot.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dst, "raw")); err != nil {
		t.Fatal(err)
	}
	if err := Clash(src, dst); err == nil || !strings.Contains(err.Error(), "raw is there already as a symlink, where the run has a directory") {
		t.Errorf("a directory over a symlink: %v", err)
	}
	if err := os.Remove(filepath.Join(dst, "raw")); err != nil {
		t.Fatal(err)
	}
	if err := Clash(src, dst); err != nil {
		t.Errorf("nothing in the way: %v", err)
	}
}
