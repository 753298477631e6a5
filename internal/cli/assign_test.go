package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/apputil"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

func TestAssignOptions(t *testing.T) {
	got := parseOptions(t, newAssignCommand, "--cgroup", "system.slice/x.service", "--level", "5",
		"--max-level", "6", "--sndbuf", "64k", "--enforce")
	if got.cgroup != "system.slice/x.service" || got.level != 5 || got.sndbuf != "64k" || !got.enforce {
		t.Errorf("parsed %+v", got)
	}
	if got.max.level != 6 || !got.max.flag.Changed {
		t.Errorf("--max-level 6 parsed as %+v", got.max)
	}
}

func TestUnassignOptions(t *testing.T) {
	if got := parseOptions(t, newUnassignCommand, "--cgroup", "/sys/fs/cgroup/a"); got.cgroup != "/sys/fs/cgroup/a" {
		t.Errorf("parsed %+v", got)
	}
}

// The cgroup v2 root is refused by assign: its programs run after those of every cgroup below it,
// so every process of the host would be on the level, over every run and assign. `--cgroup .`
// and `--cgroup ""` (an unset variable) named it and were assigned. assignedCgroup is what
// runAssign reads --cgroup with, before it attaches anything; calling runAssign here would put
// the host on a level if the refusal ever went.
func TestAssignRefusesTheRoot(t *testing.T) {
	root, release, err := apputil.CgroupRoot()
	if err != nil {
		t.Skipf("no cgroup v2 here: %v", err)
	}
	defer release()
	for _, arg := range []string{".", "./", root, root + "/", root + "/."} {
		_, err := assignedCgroup(root, arg)
		var usage *UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), "the cgroup v2 root") {
			t.Errorf("--cgroup %q: %v; want a usage error naming the cgroup v2 root", arg, err)
		}
	}
	if path, err := resolveCgroup(root, root+"/"); err != nil || path != filepath.Clean(root) {
		t.Errorf("unassign --cgroup %s/: %q, %v; want the root, to undo an assignment of it", root, path, err)
	}
}

// A cgroup the dataplane refuses is quoted as --cgroup gave it, not by the path qjump reached it
// by, which under ip netns exec is one of its descriptors ("/proc/self/fd/6/a/d/d/... at depth
// 35"); any other failure says which cgroup, by the name the user knows.
func TestAssignErrorNamesTheCgroupAsGiven(t *testing.T) {
	refused := fmt.Errorf("set cgroup ceiling: %w", &model.FieldError{Field: "cgroup", Value: "/proc/self/fd/6/a/d",
		Allowed: "at depth 35: a ceiling needs a cgroup less than 32 levels below the root"})
	err := assignError(refused, "a/d", "/sys/fs/cgroup/a/d")
	var usage *UsageError
	want := `assign: invalid --cgroup "/sys/fs/cgroup/a/d": at depth 35: a ceiling needs`
	if !errors.As(err, &usage) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a refused cgroup: %v; want a usage error starting %q", err, want)
	}
	if err := assignError(errors.New("pin sock_create link: no space"), "a/d", "a/d"); err.Error() != "assign cgroup a/d: pin sock_create link: no space" {
		t.Errorf("another failure: %v; want it to name the cgroup a/d", err)
	}
}

// A cgroup below an assigned one gets the ancestor's level, whatever its own assign said: the
// kernel runs an ancestor's programs after a cgroup's own. assign said "new sockets at level 6"
// and sockets got the ancestor's 3 without a word (review, helper-98); it now warns, naming the
// ancestor. And a run's own cgroup, under qjump.slice, is refused: it goes with its run, and
// assign's pins were left behind it.
func TestAssignBelowAnAssignedCgroupWarns(t *testing.T) {
	testutil.RequirePriv(t, "cgroup programs")
	root, release, err := apputil.CgroupRoot()
	if err != nil {
		t.Skipf("no cgroup v2 here: %v", err)
	}
	defer release()
	parent, err := os.MkdirTemp(root, "qjcl-assign-")
	if err != nil {
		t.Fatal(err)
	}
	child := filepath.Join(parent, "child")
	if err := os.Mkdir(child, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		run(t, "unassign", "--cgroup", child)
		run(t, "unassign", "--cgroup", parent)
		os.Remove(child)
		os.Remove(parent)
	})
	if _, errOut, code := run(t, "assign", "--cgroup", child, "--level", "6"); code != 0 || strings.Contains(errOut, "is below") {
		t.Fatalf("assign of the child alone: exit %d, %q; want 0 and no warning", code, errOut)
	}
	_, errOut, code := run(t, "assign", "--cgroup", parent, "--level", "3")
	if below := fmt.Sprintf("cgroups below %s are on levels of their own (%s)", parent, child); code != 0 || !strings.Contains(errOut, below) {
		t.Fatalf("assign of the parent of an assigned cgroup: exit %d, %q; want 0 and a warning %q (review, helper-100)", code, errOut, below)
	}
	_, errOut, code = run(t, "assign", "--cgroup", child, "--level", "6")
	want := fmt.Sprintf("%s is below %s, which qjump assign put on a level too", child, parent)
	if code != 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "not level 6") {
		t.Errorf("assign below an assigned cgroup: exit %d, stderr %q; want 0 and a warning %q", code, errOut, want)
	}

	runs := filepath.Join(root, apputil.Slice, "qjcl-run-1")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(runs); os.Remove(filepath.Dir(runs)) })
	_, err = assignedCgroup(root, runs)
	var usage *UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "holds the cgroups of qjump run --mode cgroup") {
		t.Errorf("assign of a run's cgroup: %v; want a usage error saying it is a run's", err)
	}
}

// run and assign say so when QJump is up on no interface of the network namespace: the level's
// priority is set and nothing limits, marks or counts it (the README's testbed example, on a
// testbed without --qjump, sent ping "at level 7" into the switch's level-0 queue: review,
// helper-99). Where a dataplane runs, or none can be read (a user without privilege), nothing.
func TestNoDataplaneIsWarned(t *testing.T) {
	s := apputil.Settings{Level: 7}
	if w := noDataplaneWarning(activeConfigs{}, s, false); len(w) != 1 || !strings.Contains(w[0], "QJump is up on no interface") ||
		!strings.Contains(w[0], "priority 7") || !strings.Contains(w[0], "unless CMD sends from another network namespace") {
		t.Errorf("run, no dataplane: %q", w)
	}
	if w := noDataplaneWarning(activeConfigs{}, s, true); len(w) != 1 || !strings.Contains(w[0], "unless the cgroup's programs send from another network namespace") {
		t.Errorf("assign, no dataplane: %q", w)
	}
	if w := noDataplaneWarning(activeConfigs{devices: []dataplane.DeviceConfig{{Device: "eth0"}}}, s, false); w != nil {
		t.Errorf("a dataplane up: %q", w)
	}
	if w := noDataplaneWarning(activeConfigs{err: errors.New("needs CAP_BPF")}, s, false); w != nil {
		t.Errorf("no privilege to read the dataplane: %q", w)
	}
}
