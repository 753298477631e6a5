package testutil

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// DeviceSnapshot is everything `qjump up` may touch on eth0 of namespace ns, as text to compare:
// its qdiscs, classes and filters, the TCX programs on it, and what is pinned under pinDir. A
// command that fails or is undone must leave it unchanged.
func DeviceSnapshot(t testing.TB, ns, pinDir string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"qdisc", "show", "dev", "eth0"}, {"class", "show", "dev", "eth0"},
		{"filter", "show", "dev", "eth0", "egress"}, {"filter", "show", "dev", "eth0", "ingress"},
	} {
		out, err := exec.Command("ip", append([]string{"netns", "exec", ns, "tc"}, args...)...).CombinedOutput()
		fmt.Fprintf(&b, "tc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	InNetns(t, ns, func() {
		ifi, err := net.InterfaceByName("eth0")
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []ebpf.AttachType{ebpf.AttachTCXEgress, ebpf.AttachTCXIngress} {
			res, err := link.QueryPrograms(link.QueryOptions{Target: ifi.Index, Attach: at})
			if err != nil {
				t.Fatalf("query tcx: %v", err)
			}
			fmt.Fprintf(&b, "tcx %v: %d programs\n", at, len(res.Programs))
		}
	})
	fmt.Fprintf(&b, "pins: %s\n", strings.Join(Pins(pinDir), " "))
	return b.String()
}

// Pins lists what is pinned under dir, relative to it, sorted; nothing when dir does not exist.
func Pins(dir string) []string {
	var out []string
	_ = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			out = append(out, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	sort.Strings(out)
	return out
}
