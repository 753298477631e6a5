package dataplane

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/qjump-net/qjump/internal/nspair"
	"github.com/qjump-net/qjump/internal/testutil"
)

// Namespace tests: two hosts, qjdp-<k>a and qjdp-<k>b, joined by a veth pair whose ends are both
// called eth0 (as on every testbed host), addressed from the benchmarking range 198.18.0.0/15.
// The qjump binary runs through `ip netns exec`, exactly as a user would run it.

var hostSeq atomic.Int32

type hosts struct {
	a, b         string // namespace names
	addrA, addrB string
}

func newHosts(t *testing.T, opts ...nspair.Option) *hosts {
	t.Helper()
	testutil.RequirePriv(t, "network namespace tests")
	k := hostSeq.Add(1) + int32(os.Getpid()%100)*100
	p, err := nspair.New(context.Background(), fmt.Sprintf("qjdp-%d", k),
		fmt.Sprintf("198.18.%d.1", k%250), fmt.Sprintf("198.18.%d.2", k%250), opts...)
	if err != nil {
		t.Fatal(err)
	}
	h := &hosts{a: p.A, b: p.B, addrA: p.AddrA, addrB: p.AddrB}
	t.Cleanup(func() {
		// Through the binary first, so pins in the host bpffs go too, then the namespaces.
		for _, ns := range []string{h.a, h.b} {
			_, _, _ = h.qjump(t, ns, "down", "--dev", "eth0")
		}
		p.Remove()
	})
	return h
}

// qjumpBinary is the real qjump, for the tests that run it inside namespaces.
func qjumpBinary(t *testing.T) string { return testutil.QjumpBinary(t) }

// qjump runs `ip netns exec ns qjump args...` and returns its output and exit status.
func (h *hosts) qjump(t *testing.T, ns string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return testutil.Run(t, nil, "ip", append([]string{"netns", "exec", ns, qjumpBinary(t)}, args...)...)
}

// mustQjump is qjump that fails the test on a non-zero exit.
func (h *hosts) mustQjump(t *testing.T, ns string, args ...string) string {
	t.Helper()
	out, errOut, code := h.qjump(t, ns, args...)
	if code != 0 {
		t.Fatalf("qjump %s in %s: exit %d: %s", strings.Join(args, " "), ns, code, errOut)
	}
	return out
}

// TestMain removes the qjump binary the namespace tests built.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
