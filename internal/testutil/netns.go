package testutil

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vishvananda/netns"

	"github.com/qjump-net/qjump/internal/host"
)

// InNetns runs f on a thread inside the named network namespace (/run/netns/ns), failing t if it
// cannot enter it; sockets f creates stay in ns.
func InNetns(t testing.TB, ns string, f func()) {
	t.Helper()
	if err := RunInNetns(ns, f); err != nil {
		t.Fatal(err)
	}
}

// RunInNetns runs f on a thread inside the named network namespace and returns to the caller's.
// It panics if it cannot get back: the test would go on in the wrong namespace.
func RunInNetns(ns string, f func()) error {
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("get network namespace: %w", err)
	}
	defer orig.Close()
	target, err := netns.GetFromName(ns)
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("open network namespace %s: %w", ns, err)
	}
	defer target.Close()
	if err := netns.Set(target); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("enter network namespace %s: %w", ns, err)
	}
	f()
	if err := netns.Set(orig); err != nil {
		panic(fmt.Sprintf("leave network namespace %s: %v", ns, err))
	}
	runtime.UnlockOSThread()
	return nil
}

// NetnsKey is the name the dataplane gives the named namespace under its state dir: what
// host.NetnsKey says inside it.
func NetnsKey(ns string) (string, error) {
	var key string
	var keyErr error
	if err := RunInNetns(ns, func() { key, keyErr = host.NetnsKey() }); err != nil {
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
