package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
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

// advise names itself when --out holds another experiment's run: it said "which a  run would mix with".
func TestAdviseOutOfAnotherExperimentRefused(t *testing.T) {
	testutil.RequirePriv(t, "advise checks the privilege before --out")
	dir := writeFiles(t, map[string]string{"results.json": `{"experiment": "fan-in"}`})
	_, errOut, status := run(t, "advise", "--p99", "1ms", "--out", dir)
	if status != exitUsage || !strings.Contains(errOut, "it holds a fan-in run (its results.json), which this advise run would mix with") {
		t.Errorf("advise --out DIR of a fan-in run: exit %d, stderr %q; want 2 naming fan-in and advise", status, errOut)
	}
}

// Runs given no --out in the same second each get a directory of their own: named by the second
// alone, a loop over seeds put two runs into one, the second replacing the first (review,
// helper-71). One that writes nothing leaves neither its directory nor the results/ it made.
func TestRunsWithoutOutNeverShareADirectory(t *testing.T) {
	base := filepath.Join(t.TempDir(), "results", "sim-fig9")
	var dirs []string
	var removes []func()
	for range 3 {
		out, removeIfEmpty, err := runOutDir("", base, "sim-fig9")
		if err != nil {
			t.Fatal(err)
		}
		dirs, removes = append(dirs, out), append(removes, removeIfEmpty)
	}
	for i, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || !strings.HasPrefix(d, base+"-") {
			t.Errorf("run %d's directory %q: %v; want a directory named %s-TIME", i, d, err, base)
		}
		for _, e := range dirs[:i] {
			if e == d {
				t.Errorf("runs %v share the directory %s", dirs, d)
			}
		}
	}
	for i := len(removes) - 1; i >= 0; i-- { // the first made results/, which goes once it is empty
		removes[i]()
	}
	if _, err := os.Stat(filepath.Dir(base)); !os.IsNotExist(err) {
		t.Errorf("after three runs that wrote nothing, %s is there (%v); want it removed with their directories", filepath.Dir(base), err)
	}
}
