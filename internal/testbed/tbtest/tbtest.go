// Package tbtest holds what the testbed's tests share: a prefix of their own, the qjump binary
// to run inside namespaces, and the check that nothing was left behind.
package tbtest

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// Prefix returns a fresh prefix (qjtt + 4 random characters) so that a test never collides with
// a running demo (qjtb) or another test, and removes whatever carries it when the test ends. The
// first call in a test binary also removes what killed test processes left (SweepStale).
func Prefix(t *testing.T) string {
	t.Helper()
	sweepOnce.Do(func() { SweepStale(t) })
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	p := prefixStem + string(b)
	t.Cleanup(func() {
		lock, err := testbed.Acquire(p)
		_ = testbed.Cleanup(context.Background(), p)
		if err == nil {
			lock.Remove()
		}
	})
	return p
}

// RequireTools skips (or fails under QJUMP_REQUIRE_PRIV=1) without root or the programs, and
// builds the real qjump, which the testbed runs in namespaces (a test binary is not qjump: it has
// no probe, up or run verbs; teardown runs its `down`). It returns that binary's path.
func RequireTools(t *testing.T, tools ...string) string {
	t.Helper()
	testutil.RequirePriv(t, "the namespace testbed")
	for _, tool := range append([]string{"ip", "tc", "nsenter", "ethtool"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Unavailable(t, tool+" is not installed (scripts/deps installs it)")
		}
	}
	testbed.Binary = testutil.QjumpBinary(t)
	return testbed.Binary
}

// Netns identifies prefix's network namespaces, taken while they exist: after teardown no process
// may still be in one (by inode), and no dataplane state may be pinned under one (by cookie, which
// is how the dataplane keys its pins: <bpffs>/qjump/<netns cookie>/).
type Netns struct {
	Inodes  map[uint64]string // inode → namespace name
	Cookies map[string]string // pin directory name (cookie, or ino-<n> without cookies) → name
}

// NetnsOf returns prefix's namespaces as they are now, those that can be entered.
func NetnsOf(t *testing.T, prefix string) Netns {
	t.Helper()
	nss, err := testbed.Namespaces(prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := Netns{Inodes: map[uint64]string{}, Cookies: map[string]string{}}
	for _, ns := range nss {
		path := filepath.Join("/run/netns", ns)
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			continue
		}
		key, err := testutil.NetnsKey(ns)
		if err != nil {
			// Not mounted yet (`ip netns add` creates the file first): leave it out, as one that
			// does not exist yet; callers count the namespaces they expect.
			continue
		}
		out.Inodes[st.Ino] = ns
		out.Cookies[key] = ns
	}
	return out
}

// AssertNothingLeft fails t if anything of prefix remains: a namespace, a link, the state file,
// a process in one of its namespaces, or a dataplane pin under one (namespaces from NetnsOf).
func AssertNothingLeft(t *testing.T, prefix string, nss Netns) {
	t.Helper()
	if left, _ := testbed.Namespaces(prefix); len(left) > 0 {
		t.Errorf("namespaces left behind: %v", left)
	}
	out, _ := exec.Command("ip", "-o", "link", "show").Output()
	if strings.Contains(string(out), prefix) {
		t.Errorf("links left behind in the root namespace:\n%s", out)
	}
	for _, f := range []string{prefix + ".json", prefix + ".lock"} {
		if _, err := os.Stat(filepath.Join(testbed.RunDir, f)); err == nil {
			t.Errorf("%s left behind in %s", f, testbed.RunDir)
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/ns/net")
	for _, p := range procs {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) == nil {
			if ns, ok := nss.Inodes[st.Ino]; ok {
				cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(p)), "cmdline"))
				t.Errorf("process %s still runs in namespace %s: %q", filepath.Base(filepath.Dir(filepath.Dir(p))), ns, cmd)
			}
		}
	}
	for key, ns := range nss.Cookies {
		if _, err := os.Stat(filepath.Join(PinRoot, key)); err == nil {
			t.Errorf("dataplane pins left behind for namespace %s under %s/%s", ns, PinRoot, key)
		}
	}
}

// PinRoot is where the dataplane pins its state, one directory per network namespace.
var PinRoot = host.StateDirIn(host.DefaultBPFFS)
