package testutil

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/qjump-net/qjump/internal/host"
)

// progID is a BPF program's ID in tc's listing of a filter: a program loaded again for the same
// configuration gets a new one, which is not a difference on the device.
var progID = regexp.MustCompile(`\bid [0-9]+`)

// DeviceSnapshot is everything `qjump up` may touch on eth0 of namespace ns, as text to compare:
// its qdiscs, classes and filters, the TCX programs on it, and what is pinned under pinDir for ns
// (pinDir is ns's own state directory, or the host's, where other namespaces' are left out). A
// command that fails or is undone must leave it unchanged.
func DeviceSnapshot(t testing.TB, ns, pinDir string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{
		{"qdisc", "show", "dev", "eth0"}, {"class", "show", "dev", "eth0"},
		{"filter", "show", "dev", "eth0", "egress"}, {"filter", "show", "dev", "eth0", "ingress"},
	} {
		out, err := exec.Command("ip", append([]string{"netns", "exec", ns, "tc"}, args...)...).CombinedOutput()
		fmt.Fprintf(&b, "tc %s: %v\n%s", strings.Join(args, " "), err, progID.ReplaceAll(out, []byte("id *")))
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
	key, err := NetnsKey(ns)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "pins: %s\n", strings.Join(pinsOf(pinDir, key), " "))
	return b.String()
}

// pinsOf is Pins(dir) without the directories of network namespaces other than the one whose key
// is key, when dir is the host's state directory: other tests' namespaces come and go (a deleted
// namespace's directory stays until the next up prunes it), which is no change on this device.
func pinsOf(dir, key string) []string {
	var out []string
	for _, p := range Pins(dir) {
		first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if host.IsNetnsKey(first) && first != key {
			continue
		}
		out = append(out, p)
	}
	return out
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
