package agent

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// loggedAgent writes file as the cluster file at path (a fresh one for "") and makes an agent of
// it with opts, its StateDir a temporary directory and its log in the buffer returned: the tests
// that read what the agent says of its file.
func loggedAgent(t *testing.T, path, file string, opts Options) (*Agent, string, *bytes.Buffer, error) {
	t.Helper()
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
