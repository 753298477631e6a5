package tctree

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/testutil"
)

// device makes a veth pair with queues TX queues in a new, unnamed network namespace that this
// test's thread enters; the namespace and everything in it vanish when the test ends. tc runs in
// it through nsenter on the thread's namespace.
func device(t *testing.T, queues int) (ifindex int, tc func(args ...string)) {
	t.Helper()
	testutil.RequirePriv(t, "network namespaces and qdiscs")
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	ns, err := netns.New()
	if err != nil {
		t.Fatalf("new network namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = netns.Set(orig)
		ns.Close()
		orig.Close()
		runtime.UnlockOSThread()
	})
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "eth0", NumTxQueues: queues, NumRxQueues: queues},
		PeerName: "peer0"}
	if err := netlink.LinkAdd(veth); err != nil {
		t.Fatalf("add veth: %v", err)
	}
	l, err := netlink.LinkByName("eth0")
	if err != nil {
		t.Fatal(err)
	}
	if err := netlink.LinkSetUp(l); err != nil {
		t.Fatal(err)
	}
	nsPath := fmt.Sprintf("/proc/%d/task/%d/ns/net", os.Getpid(), unix.Gettid())
	return l.Attrs().Index, func(args ...string) {
		t.Helper()
		cmd := exec.Command("nsenter", append([]string{"--net=" + nsPath, "tc"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tc %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
}

// takeOver puts a tree over the device's egress as `qjump up` does: an HTB root with a class.
func takeOver(t *testing.T, tc func(...string)) {
	tc("qdisc", "replace", "dev", "eth0", "root", "handle", "514a:", "htb", "default", "10")
	tc("class", "add", "dev", "eth0", "parent", "514a:", "classid", "514a:1", "htb", "rate", "100mbit")
}

func snapshot(t *testing.T, ifindex int) Tree {
	t.Helper()
	tree, err := Snapshot(ifindex)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// roundTrip snapshots the device, takes it over, restores it and checks that the device is
// configured as before.
func roundTrip(t *testing.T, ifindex int, tc func(...string)) Tree {
	t.Helper()
	before := snapshot(t, ifindex)
	if err := before.Restorable(); err != nil {
		t.Fatalf("Restorable: %v", err)
	}
	takeOver(t, tc)
	if Equal(before, snapshot(t, ifindex)) {
		t.Fatal("the take-over changed nothing: the test would prove nothing")
	}
	if err := Restore(ifindex, before); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if after := snapshot(t, ifindex); !Equal(before, after) {
		t.Fatalf("restored tree differs:\nbefore %+v\nafter  %+v", before.Objects, after.Objects)
	}
	return before
}

func TestRestoreKernelDefault(t *testing.T) {
	ifindex, tc := device(t, 1)
	before := roundTrip(t, ifindex, tc)
	if !before.Default() {
		t.Errorf("a new veth's noqueue is not the kernel's default: %+v", before.Objects)
	}
	if got := before.String(); !strings.Contains(got, "noqueue") || !strings.Contains(got, "default") {
		t.Errorf("String() = %q, want the noqueue default named", got)
	}
}

// An mq added by hand (a server NIC's multi-queue layout) has a handle of its own: deleting the
// root would leave noqueue, so it must be re-created, with its default children.
func TestRestoreMultiQueue(t *testing.T) {
	ifindex, tc := device(t, 4)
	tc("qdisc", "replace", "dev", "eth0", "root", "handle", "7:", "mq")
	before := roundTrip(t, ifindex, tc)
	if before.Default() {
		t.Error("an mq added by hand counts as the kernel's default")
	}
	if n := count(before, Qdisc); n != 5 {
		t.Errorf("%d qdiscs in the snapshot, want mq and 4 children", n)
	}
}

// The testbed's emulated NIC: an HTB at the line rate, one class per TX queue with a TBF that
// segments and a pfifo_fast below it, and a classic-BPF classifier on the TX queue.
func TestRestoreShaperTree(t *testing.T) {
	ifindex, tc := device(t, 2)
	tc("qdisc", "replace", "dev", "eth0", "root", "handle", "1:", "htb", "default", "10")
	tc("class", "add", "dev", "eth0", "parent", "1:", "classid", "1:1", "htb", "rate", "100mbit", "ceil", "100mbit")
	for q := range 2 {
		class := fmt.Sprintf("1:1%d", q)
		tbf := fmt.Sprintf("2%d:", q)
		tc("class", "add", "dev", "eth0", "parent", "1:1", "classid", class, "htb", "rate", "8kbit", "ceil", "100mbit")
		tc("qdisc", "add", "dev", "eth0", "parent", class, "handle", tbf, "tbf", "rate", "10gbit", "burst", "1514", "limit", "100000")
		tc("qdisc", "add", "dev", "eth0", "parent", tbf+"1", "handle", fmt.Sprintf("3%d:", q), "pfifo_fast")
	}
	// A = queue_mapping; return 1:10 + A
	tc("filter", "add", "dev", "eth0", "parent", "1:", "protocol", "all", "prio", "1", "bpf", "bytecode",
		"3,32 0 0 4294963224,4 0 0 65552,22 0 0 0")
	before := roundTrip(t, ifindex, tc)
	if n := count(before, Filter); n != 1 {
		t.Errorf("%d filters in the snapshot, want 1", n)
	}
	if got, want := before.String(), "htb 1: (3 classes, 4 qdiscs, 1 filter)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestRestoreU32(t *testing.T) {
	ifindex, tc := device(t, 1)
	tc("qdisc", "replace", "dev", "eth0", "root", "handle", "1:", "htb", "default", "10")
	tc("class", "add", "dev", "eth0", "parent", "1:", "classid", "1:10", "htb", "rate", "100mbit")
	tc("class", "add", "dev", "eth0", "parent", "1:", "classid", "1:17", "htb", "rate", "100mbit")
	tc("filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1", "u32",
		"match", "ip", "tos", "0xe0", "0xe0", "flowid", "1:17")
	// The round trip proves the filter restored only if the snapshot holds it: u32 dumps its hash
	// table as a filter of its own besides the match.
	before := roundTrip(t, ifindex, tc)
	u32 := 0
	for _, o := range before.Objects {
		if o.Kind == Filter && o.Type == "u32" {
			u32++
		}
	}
	if u32 != 2 || count(before, Filter) != 2 {
		t.Errorf("%d u32 filters of %d filters in the snapshot, want 2: the hash table and the match: %+v", u32, count(before, Filter), before.Objects)
	}
}

func count(t Tree, k Kind) int {
	n := 0
	for _, o := range t.Objects {
		if o.Kind == k {
			n++
		}
	}
	return n
}

func TestRestorableRefusesEBPFClassifier(t *testing.T) {
	// An eBPF cls_bpf filter dumps its program's name, tag and id, no instructions.
	ebpf := nl32(10, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	tree := Tree{Objects: []Object{
		{Kind: Qdisc, Handle: 0x10000, Parent: netlink.HANDLE_ROOT, Type: "htb"},
		{Kind: Filter, Handle: 1, Parent: 0x10000, Info: 1 << 16, Type: "bpf", Options: ebpf},
	}}
	if err := tree.Restorable(); err == nil {
		t.Fatal("Restorable accepted an eBPF classifier, which a dump cannot re-create")
	}
	tree.Objects[1].Type = "flower"
	if err := tree.Restorable(); err == nil {
		t.Fatal("Restorable accepted a flower filter, which Restore does not know")
	}
}

func nl32(typ uint16, v []byte) []byte {
	b := make([]byte, 4, 4+len(v))
	b[0], b[1], b[2], b[3] = byte(4+len(v)), 0, byte(typ), 0
	return append(b, v...)
}
