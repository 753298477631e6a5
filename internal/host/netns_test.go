package host_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testutil"
)

// readIPv6Off reads net.ipv6.conf.SCOPE.disable_ipv6 as a process inside ns sees it ("" for the
// caller's own namespace), through cat: a reader that does not share DisableIPv6's thread.
func readIPv6Off(t *testing.T, ns, scope string) string {
	t.Helper()
	argv := []string{"cat", "/proc/sys/net/ipv6/conf/" + scope + "/disable_ipv6"}
	if ns != "" {
		argv = append([]string{"ip", "netns", "exec", ns}, argv...)
	}
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// IPv6 goes off in the namespace named and nowhere else, and a name that is not a namespace is
// refused with the name in the message.
func TestDisableIPv6(t *testing.T) {
	testutil.RequirePriv(t, "network namespaces")
	if _, err := os.Stat("/proc/sys/net/ipv6"); err != nil {
		testutil.Unavailable(t, "this kernel has no IPv6 to turn off")
	}
	ns := fmt.Sprintf("qjhost%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add %s: %v: %s", ns, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	before := map[string]string{"all": readIPv6Off(t, "", "all"), "default": readIPv6Off(t, "", "default")}
	for scope := range before {
		if got := readIPv6Off(t, ns, scope); got != "0" {
			t.Fatalf("a new namespace starts with %s.disable_ipv6=%s, want 0: the test would prove nothing", scope, got)
		}
	}

	if err := host.DisableIPv6(ns); err != nil {
		t.Fatal(err)
	}
	for scope, was := range before {
		if got := readIPv6Off(t, ns, scope); got != "1" {
			t.Errorf("in %s after DisableIPv6: %s.disable_ipv6=%s, want 1", ns, scope, got)
		}
		if got := readIPv6Off(t, "", scope); got != was {
			t.Errorf("in the caller's namespace: %s.disable_ipv6 went from %s to %s", scope, was, got)
		}
	}

	err := host.DisableIPv6(ns + "-none")
	if err == nil || !strings.Contains(err.Error(), ns+"-none") {
		t.Errorf("DisableIPv6 of a namespace that does not exist: %v, want an error naming it", err)
	}
}
