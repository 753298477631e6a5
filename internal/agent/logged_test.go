package agent

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/testutil"
)

// loggedAgent writes file as the cluster file at path (a fresh one for "") and makes an agent of
// it with opts, its StateDir a temporary directory and its log in the buffer returned: the tests
// that read what the agent says of its file. Skipped without the dataplane's privilege, which New
// refuses.
func loggedAgent(t *testing.T, path, file string, opts Options) (*Agent, string, *bytes.Buffer, error) {
	t.Helper()
	requireAgentPrivilege(t)
	if path == "" {
		path = filepath.Join(t.TempDir(), "cluster.yaml")
	}
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	opts.ConfigPath, opts.StateDir, opts.Log = path, t.TempDir(), slog.New(slog.NewTextHandler(&log, nil))
	a, err := New(opts)
	return a, path, &log, err
}

// requireAgentPrivilege skips t without the dataplane's privilege: New refuses to make an agent.
func requireAgentPrivilege(t *testing.T) {
	t.Helper()
	if missing := dataplane.MissingPrivilege(); len(missing) > 0 {
		testutil.Unavailable(t, "an agent needs "+strings.Join(missing, " and "))
	}
}
