package agent

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/nspair"
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

// agentInNS is an agent of file (loggedAgent), its cgroup root a temporary directory, for a test
// that drives it in the first namespace of a pair named name on 198.19.subnet.0/24 (qjumpPair),
// with host.InNetns. Skipped without root.
func agentInNS(t *testing.T, name string, subnet int, file string) (*Agent, *nspair.Pair, *bytes.Buffer) {
	t.Helper()
	testutil.RequirePriv(t, "the agent's dataplane")
	pair := qjumpPair(t, name, fmt.Sprintf("198.19.%d.1", subnet), fmt.Sprintf("198.19.%d.2", subnet))
	a, _, log, err := loggedAgent(t, "", file, Options{CgroupRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return a, pair, log
}

// deleteLink deletes the interface called name in the caller's network namespace and gives what
// it was.
func deleteLink(name string) (netlink.Link, error) {
	l, err := netlink.LinkByName(name)
	if err == nil {
		err = netlink.LinkDel(l)
	}
	return l, err
}
