package testutil

import (
	"path/filepath"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
)

// InNetns runs f on a thread inside the named network namespace (/run/netns/ns), failing t if it
// cannot enter it; sockets f creates stay in ns.
func InNetns(t testing.TB, ns string, f func()) {
	t.Helper()
	if err := host.InNetns(ns, f); err != nil {
		t.Fatal(err)
	}
}

// NetnsKey is the name the dataplane gives the named namespace under its state dir: what
// host.NetnsKey says inside it.
func NetnsKey(ns string) (string, error) {
	var key string
	var keyErr error
	if err := host.InNetns(ns, func() { key, keyErr = host.NetnsKey() }); err != nil {
		return "", err
	}
	return key, keyErr
}

// PinDir is the directory under which the dataplane pins the state of the named namespace on the
// host's bpffs.
func PinDir(t testing.TB, ns string) string {
	t.Helper()
	key, err := NetnsKey(ns)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(host.StateDirIn(host.DefaultBPFFS), key)
}
