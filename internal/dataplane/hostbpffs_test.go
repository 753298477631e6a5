package dataplane

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/testutil"
)

// TestUpUnderNetnsExecMountsTheHostBPFFS: on a host where nothing mounted bpffs (no systemd, a
// minimal VM or container), `ip netns exec NS qjump up` mounts one in the host mount namespace,
// as qjump does when run there, instead of refusing: pins made from inside ip netns exec's
// private namespace must outlive it. The host is played by a mount and PID namespace of the
// test's own (unshare), whose /sys/fs/bpf is unmounted; its PID 1 is the script.
func TestUpUnderNetnsExecMountsTheHostBPFFS(t *testing.T) {
	testutil.RequirePriv(t, "mount and network namespaces")
	script := `set -e
umount /sys/fs/bpf 2>/dev/null || true
echo "before: $(stat -f -c %T /sys/fs/bpf)"
ip netns add qjhostfs
trap 'ip netns exec qjhostfs "$QJ" down --dev eth0 >/dev/null 2>&1 || true; ip netns del qjhostfs' EXIT
ip -n qjhostfs link add eth0 type veth peer name eth1
ip -n qjhostfs link set eth0 up
ip -n qjhostfs link set eth1 up
ip netns exec qjhostfs "$QJ" up --dev eth0 --hosts 4 --rate 1G
echo "after: $(stat -f -c %T /sys/fs/bpf) $(ls /sys/fs/bpf/qjump | grep -c .)"
ip netns exec qjhostfs "$QJ" status >/dev/null
echo "status: ok"
`
	cmd := exec.Command("unshare", "--mount", "--pid", "--fork", "--mount-proc", "bash", "-c", script)
	cmd.Env = append(cmd.Environ(), "QJ="+qjumpBinary(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	text := string(out)
	if !strings.Contains(text, "before: sysfs") {
		t.Fatalf("the test's host namespace kept a bpffs, so it shows nothing:\n%s", text)
	}
	if !strings.Contains(text, "after: bpf_fs") || strings.Contains(text, "after: bpf_fs 0") || !strings.Contains(text, "status: ok") {
		t.Fatalf("up under ip netns exec did not mount the host's bpffs and pin its state there:\n%s", text)
	}
}
