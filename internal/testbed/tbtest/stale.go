package tbtest

import (
	"context"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testbed"
)

// prefixStem begins every prefix that Prefix makes.
const prefixStem = "qjtt"

// testPrefix matches the prefixes that Prefix makes, and nothing a user would build.
var testPrefix = regexp.MustCompile(`^` + prefixStem + `[a-z0-9]{4}$`)

var sweepOnce sync.Once

// SweepStale removes the testbeds that earlier test processes left behind: a test binary that
// `go test -timeout` or a signal ends runs no cleanup, and its random prefix is never used again,
// so nothing else would remove its namespaces. It takes only test prefixes whose lock nobody holds
// (a testbed being built, run or torn down holds its lock) and whose builder is gone (a test's
// testbed that is up between two steps has its live process's PID in the state file), and logs
// what it removed. It returns the prefixes removed.
func SweepStale(t *testing.T) []string {
	t.Helper()
	var removed []string
	for _, p := range testPrefixesPresent() {
		lock, err := testbed.Acquire(p)
		if err != nil {
			continue // in use right now
		}
		if !testbed.Exists(p) {
			lock.Remove() // its own test removed it since we looked: only our lock file is left
			continue
		}
		if s, err := testbed.ReadState(p); err == nil && host.ProcessRuns(s.PID) {
			lock.Release()
			continue
		}
		if err := testbed.Cleanup(context.Background(), p); err != nil {
			t.Logf("could not remove the testbed an earlier test left under prefix %s: %v", p, err)
			lock.Release()
			continue
		}
		lock.Remove()
		removed = append(removed, p)
	}
	if len(removed) > 0 {
		t.Logf("removed the testbeds earlier test processes left behind: %s", strings.Join(removed, ", "))
	}
	return removed
}

// testPrefixesPresent lists the test prefixes that have a namespace or a state file.
func testPrefixesPresent() []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if testPrefix.MatchString(p) && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if entries, err := os.ReadDir("/run/netns"); err == nil {
		for _, e := range entries {
			if p, _, ok := strings.Cut(e.Name(), "-"); ok {
				add(p)
			}
		}
	}
	states, _ := testbed.Prefixes()
	for _, p := range states {
		add(p)
	}
	return out
}
