package cli

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/testutil"
	"github.com/qjump-net/qjump/internal/version"
)

// qjump built as the Makefile builds it names the commit of the checkout it was built in, and
// whether that checkout had changes (go's own test of it: git status --porcelain says anything),
// so that an operator can tell which qjump runs on a node and a results file which made it.
func TestVersionNamesTheCommit(t *testing.T) {
	if !testutil.BuildStampsCommit() {
		t.Skip("not a checkout of its own that git reads (a linked worktree, a tree inside another repository, " +
			"another user's): qjump is built without a commit here, as the Makefile builds it")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	porcelain, err := exec.Command("git", "status", "--porcelain").Output()
	if err != nil {
		t.Skipf("git status: %v", err)
	}
	out, err := exec.Command(testutil.QjumpBinary(t), "version", "--json").Output()
	if err != nil {
		t.Fatalf("qjump version --json: %v", err)
	}
	var v version.Info
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("qjump version --json: %v in %s", err, out)
	}
	if want := strings.TrimSpace(string(head)); v.Revision != want {
		t.Errorf("qjump version --json: revision %q, want HEAD's %s", v.Revision, want)
	}
	if want := len(bytes.TrimSpace(porcelain)) > 0; v.Modified != want {
		t.Errorf("qjump version --json: modified %v, but git status --porcelain says %q", v.Modified, porcelain)
	}
	line, err := exec.Command(testutil.QjumpBinary(t), "--version").Output()
	if err != nil {
		t.Fatalf("qjump --version: %v", err)
	}
	if got, want := strings.TrimSpace(string(line)), v.String(); got != want {
		t.Errorf("qjump --version printed %q, want what version --json describes: %q", got, want)
	}
	var program struct{ Program string }
	if err := json.Unmarshal(out, &program); err != nil || program.Program != dataplane.ProgramBuild() {
		t.Errorf("qjump version --json: program %q (%v), want the build of the object it embeds, %s",
			program.Program, err, dataplane.ProgramBuild())
	}
}
