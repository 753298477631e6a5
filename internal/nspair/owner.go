package nspair

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/qjump-net/qjump/internal/host"
)

// OwnerDir records which process made each pair: a file per pair, named after it, holding the
// maker's PID. A process that is killed (a test binary at `go test -timeout`, a benchmark at
// SIGKILL) cannot remove its pair; its record lets the next process that makes a pair remove it.
// /run is cleared at boot, as are the namespaces.
var OwnerDir = "/run/qjump-nspair"

var sweepOnce sync.Once

// recordOwner notes that this process makes the pair name.
func recordOwner(name string) error {
	if err := os.MkdirAll(OwnerDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(OwnerDir, name), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
}

// SweepDead removes the pairs whose maker no longer runs, and their records, and returns their
// names. A pair whose maker is alive is kept, however long it has been up; a PID that was reused
// keeps a dead maker's pair (the safe side). New calls it once per process, before its first pair.
func SweepDead() []string {
	entries, err := os.ReadDir(OwnerDir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(OwnerDir, e.Name()))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err == nil && host.ProcessRuns(pid) {
			continue
		}
		(&Pair{A: e.Name() + "a", B: e.Name() + "b", name: e.Name()}).Remove()
		removed = append(removed, e.Name())
	}
	return removed
}
