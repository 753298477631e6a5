package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// A run that fails early removes every directory it made for --out, deepest first, not only
// --out itself: --out /tmp/x/a/b left /tmp/x/a, and the default --out a bare results/.
func TestOutDirRemovesTheParentsItMade(t *testing.T) {
	root := t.TempDir()
	keep := filepath.Join(root, "x", "kept")
	if err := os.MkdirAll(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	removeIfEmpty, err := makeOutDir(filepath.Join(root, "x", "a", "b"), "fan-in")
	if err != nil {
		t.Fatal(err)
	}
	removeIfEmpty()
	left, _ := filepath.Glob(filepath.Join(root, "x", "*"))
	if len(left) != 1 || left[0] != keep {
		t.Errorf("after a run into x/a/b that wrote nothing, x holds %v; want only the kept directory that was there before", left)
	}
}
