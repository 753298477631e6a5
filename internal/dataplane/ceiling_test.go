package dataplane

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

// TestCgroupCeilingAppliesEverywhere: one SetCgroupCeiling clamps the sockets of a cgroup on
// every device QJump is up on, here eth0 of two namespaces, and ClearCgroupCeiling lifts it.
func TestCgroupCeilingAppliesEverywhere(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...)
	h.mustQjump(t, h.b, upArgs("--attach", "clsact")...)
	mount, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	cg := mkCgroup(t, filepath.Join(mount, fmt.Sprintf("qjdp-%d-ceiling", os.Getpid())))
	id := cgroupID(t, cg)
	if err := SetCgroupCeiling(cg, 5); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ClearCgroupCeiling(id) })

	sendFrom := func(ns, dst string) { sendFromCgroup(t, cg, ns, dst) }
	levelSent := func(ns string, level int) uint64 {
		return h.status(t, ns).Devices[0].Level(t, level).SentPackets
	}
	// Deltas, so that anything else on the links (the kernel's own packets) does not count.
	before := map[string][2]uint64{}
	for _, ns := range []string{h.a, h.b} {
		before[ns] = [2]uint64{levelSent(ns, 5), levelSent(ns, 7)}
	}
	sendFrom(h.a, h.addrB)
	sendFrom(h.b, h.addrA)
	for _, ns := range []string{h.a, h.b} {
		l5, l7 := levelSent(ns, 5)-before[ns][0], levelSent(ns, 7)-before[ns][1]
		if l5 < 10 || l7 >= 10 {
			t.Errorf("%s under ceiling 5: level 5 sent %d more, level 7 %d more; want 10 at level 5", ns, l5, l7)
		}
	}
	if err := ClearCgroupCeiling(id); err != nil {
		t.Fatal(err)
	}
	l7 := levelSent(h.a, 7)
	sendFrom(h.a, h.addrB)
	if d := levelSent(h.a, 7) - l7; d < 10 {
		t.Errorf("after ClearCgroupCeiling: level 7 sent %d more, want 10", d)
	}
}

// TestCeilingHoldsBelowItsCgroup: issue 12: a ceiling given to a cgroup holds for every cgroup
// below it, also for those made after it was set, with nothing else running (no agent); nested
// ceilings combine to the lowest on the path, and clearing one lifts only it.
func TestCeilingHoldsBelowItsCgroup(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs()...) // levels 7 and 5 budgeted, 0 unlimited: 3 is sent at 0
	mount, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	pod := mkCgroup(t, filepath.Join(mount, fmt.Sprintf("qjdp-%d-pod", os.Getpid())))
	podID := cgroupID(t, pod)
	if err := SetCgroupCeiling(pod, 5); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ClearCgroupCeiling(podID) })
	ctr := mkCgroup(t, filepath.Join(pod, "ctr"))     // made after the ceiling
	proc := mkCgroup(t, filepath.Join(ctr, "worker")) // two levels below it
	sentAt := func(l int) uint64 { return h.status(t, h.a).Devices[0].Level(t, l).SentPackets }
	check := func(what string, want int) {
		t.Helper()
		var before [model.NumLevels]uint64
		for _, l := range []int{0, 5, 7} {
			before[l] = sentAt(l)
		}
		sendFromCgroup(t, proc, h.a, h.addrB)
		for _, l := range []int{0, 5, 7} {
			d := sentAt(l) - before[l]
			if (l == want) != (d >= 10) {
				t.Errorf("%s: level %d sent %d more of 10 datagrams at priority 7; want all at level %d", what, l, d, want)
			}
		}
	}
	check("ceiling 5 on the pod, sender two cgroups below", 5)
	ctrID := cgroupID(t, ctr)
	if err := SetCgroupCeiling(ctr, 3); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ClearCgroupCeiling(ctrID) })
	check("ceiling 3 on the container below the pod's 5 (3 is sent at 0)", 0)
	if err := ClearCgroupCeiling(ctrID); err != nil {
		t.Fatal(err)
	}
	check("the container's ceiling cleared, the pod's stays", 5)
	if err := ClearCgroupCeiling(podID); err != nil {
		t.Fatal(err)
	}
	check("no ceiling left", 7)
}

func mkCgroup(t *testing.T, path string) string {
	t.Helper()
	if err := os.Mkdir(path, 0o755); err != nil {
		testutil.Unavailable(t, "create a cgroup: "+err.Error())
	}
	t.Cleanup(func() { _ = os.Remove(path) })
	return path
}

func cgroupID(t *testing.T, path string) uint64 {
	t.Helper()
	id, err := host.CgroupID(path)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// sendFromCgroup sends 10 datagrams at priority 7 from a child process in the cgroup cg and the
// network namespace ns (TestHelperCgroupSender).
func sendFromCgroup(t *testing.T, cg, ns, dst string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCgroupSender$")
	cmd.Env = append(os.Environ(), "QJDP_HELPER=1", "QJDP_CGROUP="+cg, "QJDP_NETNS="+ns, "QJDP_DST="+dst)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sender in %s: %v: %s", ns, err, out)
	}
}

// TestHelperCgroupSender is not a test: TestCgroupCeilingAppliesEverywhere runs it in a child
// process that joins a cgroup and a network namespace, then sends 10 datagrams at priority 7.
func TestHelperCgroupSender(t *testing.T) {
	if os.Getenv("QJDP_HELPER") != "1" {
		t.Skip("helper process for TestCgroupCeilingAppliesEverywhere")
	}
	pid := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(os.Getenv("QJDP_CGROUP"), "cgroup.procs"), pid, 0); err != nil {
		t.Fatal(err)
	}
	testutil.InNetns(t, os.Getenv("QJDP_NETNS"), func() { sendAtPriority7(t, os.Getenv("QJDP_DST")) })
}

// sendAtPriority7 sends 10 datagrams to dst at priority 7.
func sendAtPriority7(t *testing.T, dst string) {
	t.Helper()
	// Unconnected: the ICMP port-unreachable replies then fail no write.
	c, err := net.ListenUDP("udp4", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, _ := c.SyscallConn()
	_ = raw.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PRIORITY, 7) })
	for i := 0; i < 10; i++ {
		if _, err := c.WriteTo(make([]byte, 100), &net.UDPAddr{IP: net.ParseIP(dst), Port: 5009}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLastCeilingClearedLeavesNothing: with QJump up nowhere, setting a ceiling creates and pins
// the shared ceiling maps (`qjump run --max-level`, `assign --max-level`); clearing the last one
// removes them and QJump's state directory again, as down does for what up made.
func TestLastCeilingClearedLeavesNothing(t *testing.T) {
	testutil.RequirePriv(t, "cgroup ceilings")
	root := stateRoot(t)
	if entries, err := os.ReadDir(root); err == nil && len(entries) > 0 {
		testutil.Unavailable(t, fmt.Sprintf("QJump's state directory %s is in use: QJump is up on this host, or an earlier test left state", root))
	}
	mount, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, err.Error())
	}
	cg := mkCgroup(t, filepath.Join(mount, fmt.Sprintf("qjdp-%d-lastceiling", os.Getpid())))
	id := cgroupID(t, cg)
	if err := SetCgroupCeiling(cg, 3); err != nil {
		t.Fatal(err)
	}
	p, err := pathsFor("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.shared(qjumpMapCgroupCeilings)); err != nil {
		t.Fatalf("the ceiling map after SetCgroupCeiling: %v", err)
	}
	if err := ClearCgroupCeiling(id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(root)
		t.Errorf("after the last ceiling was cleared, %s is still there (%v): %v", root, err, entries)
	}
}
