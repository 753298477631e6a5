package host_test

import (
	"os"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testutil"
)

// On this machine the host's mount namespace can be told (root can read PID 1's, or kthreadd's
// where an init hides its own), and it is PID 1's wherever that can be read.
func TestHostNamespace(t *testing.T) {
	testutil.RequirePriv(t, "reading PID 1's or kthreadd's mount namespace")
	ns := host.HostNamespace()
	if !strings.HasPrefix(ns, "mnt:[") {
		t.Fatalf("HostNamespace() = %q, want a mount namespace", ns)
	}
	if one, err := os.Readlink("/proc/1/ns/mnt"); err == nil && one != ns {
		t.Errorf("HostNamespace() = %q, PID 1's is %q", ns, one)
	}
}
