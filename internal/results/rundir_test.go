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
