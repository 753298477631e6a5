package dataplane

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/testutil"
)

// egressFiltersOf lists eth0's egress filters in ns in the order the kernel runs them (by pref).
func egressFiltersOf(t *testing.T, ns string) []netlink.Filter {
	t.Helper()
	var fs []netlink.Filter
	var err error
	testutil.InNetns(t, ns, func() {
		var l netlink.Link
		if l, err = netlink.LinkByName("eth0"); err == nil {
			fs, err = netlink.FilterList(l, netlink.HANDLE_MIN_EGRESS)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// qjumpFilterPref is the pref of QJump's filter on eth0's egress in ns, 0 if it is not there,
// after checking that it runs first.
func qjumpFilterPref(t *testing.T, ns string) uint16 {
	t.Helper()
	var pref uint16
	for i, f := range egressFiltersOf(t, ns) {
		if !isQJumpFilter(f) {
			continue
		}
		if i != 0 {
			t.Errorf("QJump's filter is number %d on the egress (pref %d), want first", i+1, f.Attrs().Priority)
		}
		pref = f.Attrs().Priority
	}
	return pref
}

// qjumpFilters counts QJump's filters on eth0's egress in ns.
func qjumpFilters(t *testing.T, ns string) int {
	t.Helper()
	n := 0
	for _, f := range egressFiltersOf(t, ns) {
		if isQJumpFilter(f) {
			n++
		}
	}
	return n
}

// TestClsactFilterGoesFirst: a reviewer's u32 filter at pref 5 that matched the level-7 packets
// ended their classification before QJump's filter at its fixed pref 0x514a, and they passed
// uncounted and unlimited, status saying nothing. Up now puts QJump's filter before every filter
// on the egress (pref 4 here), where it counts them; reload keeps it there; a filter added since
// at a lower pref makes status warn, naming it; down removes QJump's filter alone.
func TestClsactFilterGoesFirst(t *testing.T) {
	h := newHosts(t)
	h.tc(t, h.a, "qdisc", "add", "dev", "eth0", "clsact")
	h.u32At(t, "5", "1:1")
	before := h.snapshot(t, h.a)
	h.mustQjump(t, h.a, upArgs("--attach", "clsact")...)
	if pref := qjumpFilterPref(t, h.a); pref != 4 {
		t.Fatalf("QJump's filter at pref %d, want 4 (before the u32 filter at 5)", pref)
	}

	listenUDP(t, h.b, h.addrB, 5501)
	c := dialUDP(t, h.a, h.addrB, 5501, 7)
	for range 10 {
		if _, err := c.Write(make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
	}
	// Until the peer's address is resolved, the packets wait before the egress.
	var d testutil.StatusDevice
	testutil.WaitFor(t, 5*time.Second, "level 7 to count the 10 packets sent to "+h.addrB+" (the u32 filter "+
		"takes any QJump does not see past it)", func() bool {
		d = h.status(t, h.a).Devices[0]
		return d.Level(t, 7).SentPackets >= 10
	})
	if len(d.Warnings) != 0 {
		t.Errorf("warnings %q with QJump's filter first, want none", d.Warnings)
	}

	h.mustQjump(t, h.a, "reload", "--dev", "eth0", "--factors", "7=5,5=5,0=unlimited")
	if pref := qjumpFilterPref(t, h.a); pref != 4 {
		t.Errorf("after reload, QJump's filter at pref %d, want still 4", pref)
	}
	if n := qjumpFilters(t, h.a); n != 1 {
		t.Errorf("after reload, %d filters of QJump's on the egress, want 1 (a reload replaces it in place)", n)
	}

	h.u32At(t, "3", "1:2")
	d = h.status(t, h.a).Devices[0]
	if len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "a u32 filter at pref 3 on eth0's egress runs before QJump's filter (pref 4)") {
		t.Errorf("warnings %q with a u32 filter added at pref 3, want one naming it", d.Warnings)
	}

	h.mustQjump(t, h.a, "down", "--dev", "eth0")
	for _, f := range egressFiltersOf(t, h.a) {
		if isQJumpFilter(f) || (f.Attrs().Priority != 3 && f.Attrs().Priority != 5) {
			t.Errorf("after down: a %s filter at pref %d, want only the two u32 filters", f.Type(), f.Attrs().Priority)
		}
	}
	h.tc(t, h.a, "filter", "del", "dev", "eth0", "egress", "pref", "3")
	if after := h.snapshot(t, h.a); after != before {
		t.Errorf("down left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestClsactRefusesAFilterAtPref1: nothing can go before a filter at pref 1, so up refuses, naming
// the filter and what to do, with eth0 as it was: asked for clsact at once, and falling back to it
// (auto, a kernel without TCX) after the egress tree was built, which the refusal then gives back.
func TestClsactRefusesAFilterAtPref1(t *testing.T) {
	h := newHosts(t)
	h.tc(t, h.a, "qdisc", "add", "dev", "eth0", "clsact")
	h.u32At(t, "1", "1:1")
	before := h.snapshot(t, h.a)
	_, errOut, code := h.qjump(t, h.a, upArgs("--attach", "clsact")...)
	for _, says := range []string{"a u32 filter at pref 1 on eth0's egress", "higher pref", "--attach tcx"} {
		if code != 1 || !strings.Contains(errOut, says) {
			t.Errorf("up --attach clsact: exit %d, %q; want 1, saying %q", code, errOut, says)
		}
	}
	if after := h.snapshot(t, h.a); after != before {
		t.Errorf("the refused up left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
	}
	failTCX(t)
	testutil.InNetns(t, h.a, func() {
		if _, err := Up(UpOptions{Device: "eth0", Config: testConfig()}); err == nil || !strings.Contains(err.Error(), "pref 1") {
			t.Errorf("up --attach auto falling back to clsact: %v, want refused over the filter at pref 1", err)
		}
	})
	if after := h.snapshot(t, h.a); after != before {
		t.Errorf("the refused fallback left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestClsactFilterFoundWithoutItsPref: a record of a version before the pref was chosen (no
// filter_priority) names the filter at 0x514a, where that version put it: status finds it
// attached and down removes it. With the record lost, down finds QJump's filter by its handle at
// whatever pref up chose, and leaves the filter it went before.
func TestClsactFilterFoundWithoutItsPref(t *testing.T) {
	h := newHosts(t)
	before := h.snapshot(t, h.a)
	testutil.InNetns(t, h.a, func() {
		if _, err := Up(UpOptions{Device: "eth0", Config: testConfig(), Attach: AttachClsact}); err != nil {
			t.Fatal(err)
		}
		p, err := pathsFor("eth0")
		if err != nil {
			t.Fatal(err)
		}
		rec, err := readRecord(p)
		if err != nil || rec.FilterPriority != defaultFilterPriority {
			t.Fatalf("record %+v, %v; want filter_priority %#x", rec, err, defaultFilterPriority)
		}
		rec.FilterPriority = 0
		if data, _ := json.Marshal(rec); strings.Contains(string(data), "filter_priority") {
			t.Fatalf("record of an earlier version says %s", data)
		}
		if err := writeRecord(p, rec); err != nil {
			t.Fatal(err)
		}
		if st, err := DeviceStatus("eth0"); err != nil || !st.Attached {
			t.Errorf("status of an earlier version's record: attached %v, %v; want attached", st.Attached, err)
		}
		if err := Down("eth0"); err != nil {
			t.Fatal(err)
		}
	})
	if after := h.snapshot(t, h.a); after != before {
		t.Fatalf("down of an earlier version's record left eth0 different.\nbefore:\n%s\nafter:\n%s", before, after)
	}

	h.tc(t, h.a, "qdisc", "add", "dev", "eth0", "clsact")
	h.u32At(t, "5", "1:1")
	withU32 := egressFiltersOf(t, h.a)
	h.mustQjump(t, h.a, upArgs("--attach", "clsact")...)
	if err := os.RemoveAll(testutil.PinDir(t, h.a)); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := h.qjump(t, h.a, "down", "--dev", "eth0"); code != 0 || !strings.Contains(errOut, "cls_bpf filter") {
		t.Errorf("down of the orphan: exit %d, %q; want 0, removing QJump's filter", code, errOut)
	}
	if now := egressFiltersOf(t, h.a); len(now) != len(withU32) || qjumpFilterPref(t, h.a) != 0 {
		t.Errorf("after down of the orphan: %d egress filters, QJump's at pref %d; want the u32 filter's %d alone",
			len(now), qjumpFilterPref(t, h.a), len(withU32))
	}
}

// TestTCXGoesFirst: up puts QJump's TCX program before the programs already on the egress (a
// program there that ends the run, TCX_PASS, would take packets past it); the kernel would
// append it last.
func TestTCXGoesFirst(t *testing.T) {
	h := newHosts(t)
	var floors floorObjects
	if err := loadFloorObjects(&floors, nil); err != nil {
		t.Fatal(err)
	}
	defer floors.Close()
	testutil.InNetns(t, h.a, func() {
		ifindex, err := netInterfaceByName("eth0")
		if err != nil {
			t.Fatal(err)
		}
		other, err := link.AttachTCX(link.TCXOptions{Interface: ifindex, Program: floors.FloorEmpty, Attach: ebpf.AttachTCXEgress})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		if _, err := Up(UpOptions{Device: "eth0", Config: testConfig(), Attach: AttachTCX}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = Down("eth0") }()
		res, err := link.QueryPrograms(link.QueryOptions{Target: ifindex, Attach: ebpf.AttachTCXEgress})
		if err != nil {
			t.Fatal(err)
		}
		otherInfo, err := floors.FloorEmpty.Info()
		if err != nil {
			t.Fatal(err)
		}
		otherID, _ := otherInfo.ID()
		if len(res.Programs) != 2 || res.Programs[0].ID == otherID {
			t.Errorf("TCX egress programs %+v; want QJump's first, then the one attached before up (%d)", res.Programs, otherID)
		}
		if st := mustDeviceStatus(t, "eth0"); len(st.ProgramsBefore) != 0 {
			t.Errorf("programs before QJump's %v with QJump's first, want none", st.ProgramsBefore)
		}

		// Another tool attaches at the head since: it now runs first, and status names it.
		front, err := link.AttachTCX(link.TCXOptions{Interface: ifindex, Program: floors.FloorClock,
			Attach: ebpf.AttachTCXEgress, Anchor: link.Head()})
		if err != nil {
			t.Fatal(err)
		}
		defer front.Close()
		frontInfo, err := floors.FloorClock.Info()
		if err != nil {
			t.Fatal(err)
		}
		frontID, _ := frontInfo.ID()
		st := mustDeviceStatus(t, "eth0")
		want := EgressProgram{ID: frontID, Name: frontInfo.Name}
		if len(st.ProgramsBefore) != 1 || st.ProgramsBefore[0] != want || want.Name == "" {
			t.Errorf("programs before QJump's %v after one was attached at the head; want [%v]", st.ProgramsBefore, want)
		}
	})
}

func mustDeviceStatus(t *testing.T, dev string) Status {
	t.Helper()
	st, err := DeviceStatus(dev)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// u32At adds an operator's u32 filter at pref on host a's egress, matching b's address, with
// classid: the filter a reviewer put before QJump's.
func (h *hosts) u32At(t *testing.T, pref, classid string) {
	t.Helper()
	h.tc(t, h.a, "filter", "add", "dev", "eth0", "egress", "pref", pref, "protocol", "ip", "u32",
		"match", "ip", "dst", h.addrB+"/32", "classid", classid)
}
