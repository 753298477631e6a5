// Package tbtest holds what the testbed's tests share: a prefix of their own, the qjump binary
// to run inside namespaces, and the check that nothing was left behind.
package tbtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// Prefix returns a fresh prefix (qjtt + 4 random characters) so that a test never collides with
// a running demo (qjtb) or another test, and removes whatever carries it when the test ends.
func Prefix(t *testing.T) string {
	t.Helper()
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	p := "qjtt" + string(b)
	t.Cleanup(func() {
		lock, err := testbed.Acquire(p)
		_ = testbed.Cleanup(context.Background(), p)
		if err == nil {
			lock.Remove()
		}
	})
	return p
}

// Binary is the real qjump, which the testbed runs inside namespaces (a test binary is not qjump:
// it has no probe, up or run verbs).
func Binary(t *testing.T) string {
	t.Helper()
	testbed.Binary = testutil.QjumpBinary(t)
	return testbed.Binary
}

// RequireTools skips (or fails under QJUMP_REQUIRE_PRIV=1) without root or the programs, and
// builds the qjump binary that the testbed runs in namespaces (teardown runs its `down`).
func RequireTools(t *testing.T, tools ...string) {
	t.Helper()
	testutil.RequirePriv(t, "the namespace testbed")
	for _, tool := range append([]string{"ip", "tc", "nsenter", "ethtool"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Unavailable(t, tool+" is not installed (scripts/deps installs it)")
		}
	}
	Binary(t)
}

// NetnsInodes returns the inodes of prefix's network namespaces: after teardown no process may
// still be in one, and no pinned state may be kept under one.
func NetnsInodes(t *testing.T, prefix string) map[uint64]string {
	t.Helper()
	nss, err := testbed.Namespaces(prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]string{}
	for _, ns := range nss {
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join("/run/netns", ns), &st); err == nil {
			out[st.Ino] = ns
		}
	}
	return out
}

// AssertNothingLeft fails t if anything of prefix remains: a namespace, a link, the state file,
// a process in one of its namespaces (inodes from NetnsInodes), or a dataplane pin under one.
func AssertNothingLeft(t *testing.T, prefix string, inodes map[uint64]string) {
	t.Helper()
	if nss, _ := testbed.Namespaces(prefix); len(nss) > 0 {
		t.Errorf("namespaces left behind: %v", nss)
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
			if ns, ok := inodes[st.Ino]; ok {
				cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(p)), "cmdline"))
				t.Errorf("process %s still runs in namespace %s: %q", filepath.Base(filepath.Dir(filepath.Dir(p))), ns, cmd)
			}
		}
	}
	for ino, ns := range inodes {
		for _, root := range []string{"/sys/fs/bpf/qjump"} {
			if _, err := os.Stat(filepath.Join(root, fmt.Sprint(ino))); err == nil {
				t.Errorf("dataplane pins left behind for namespace %s under %s/%d", ns, root, ino)
			}
		}
	}
}
