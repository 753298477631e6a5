package dataplane

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/tctree"
)

// QJump owns the egress scheduling of a device while it is up, in both modes: up saves the tree
// the device had (tctree), pinned beside the record, and puts QJump's own in its place (htb.go);
// down puts the saved one back exactly.

// snapshotEgress reads the device's egress tree and checks that down could put it back; up
// refuses, having changed nothing, when it could not.
func snapshotEgress(ifindex int, name string) (tctree.Tree, error) {
	t, err := tctree.Snapshot(ifindex)
	if err != nil {
		return t, fmt.Errorf("read egress of %s: %w", name, err)
	}
	if err := t.Restorable(); err != nil {
		return t, fmt.Errorf("take over egress of %s: %w; qjump up replaces the device's qdiscs and "+
			"could not put these back on down: remove them (tc qdisc del dev %s root) or move them to a device QJump does not run on",
			name, err, name)
	}
	return t, nil
}

// takeOver saves before under p and builds plan's tree in its place. The record says so first, so
// that a teardown after a failure half-way gives the device back.
func takeOver(p paths, ifindex int, before tctree.Tree, plan egressPlan, rec *record) error {
	if err := saveTree(p, before); err != nil {
		return err
	}
	rec.Egress, rec.Tree = true, &plan
	if err := writeRecord(p, *rec); err != nil {
		return err
	}
	return plan.build(ifindex)
}

// giveBack restores the tree up saved. A device that is gone took its qdiscs with it.
func giveBack(p paths, rec record) error {
	if _, err := netlink.LinkByIndex(rec.Ifindex); err != nil {
		return nil
	}
	if rec.HTB { // a record of a version that only built shape mode's tree over the default
		return deleteOwnRoot(rec.Ifindex)
	}
	t, err := loadTree(p)
	if err != nil {
		// Up failed before it saved anything: nothing of QJump's can be on the device but its
		// root, which takes the kernel's default with it.
		return errors.Join(err, deleteOwnRoot(rec.Ifindex))
	}
	if err := tctree.Restore(rec.Ifindex, t); err != nil && !gone(err) {
		return fmt.Errorf("give back egress of %s: %w", rec.Device, err)
	}
	return nil
}

// Replaced describes what up found on the device's egress and down will put back, e.g.
// "pfifo_fast 0: (the kernel's default)".
func Replaced(device string) (string, error) {
	p, err := pathsFor(device)
	if err != nil {
		return "", err
	}
	t, err := loadTree(p)
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

// The saved tree is JSON in a one-entry array map, after its length: the record's 8 KiB would hold
// a small tree only, and an operator's HTB or a 64-queue mq dumps much more.
const (
	pinEgress      = "egress"
	savedTreeBytes = 256 << 10
)

var savedTreeSpec = &ebpf.MapSpec{
	Name: "qjump_egress", Type: ebpf.Array, KeySize: 4, ValueSize: savedTreeBytes, MaxEntries: 1,
}

func saveTree(p paths, t tctree.Tree) error {
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encode egress tree: %w", err)
	}
	if len(data)+4 > savedTreeBytes {
		return fmt.Errorf("save egress tree: %s takes %d bytes, more than the %d QJump keeps", t, len(data), savedTreeBytes-4)
	}
	m, err := ebpf.NewMap(savedTreeSpec)
	if err != nil {
		return fmt.Errorf("create egress tree map: %w", err)
	}
	defer m.Close()
	buf := make([]byte, savedTreeBytes)
	binary.LittleEndian.PutUint32(buf, uint32(len(data)))
	copy(buf[4:], data)
	if err := m.Put(uint32(0), buf); err != nil {
		return fmt.Errorf("write egress tree: %w", err)
	}
	if err := m.Pin(p.pin(pinEgress)); err != nil {
		return fmt.Errorf("pin egress tree: %w", err)
	}
	return nil
}

func loadTree(p paths) (tctree.Tree, error) {
	var t tctree.Tree
	m, err := ebpf.LoadPinnedMap(p.pin(pinEgress), nil)
	if err != nil {
		return t, fmt.Errorf("open saved egress tree of %s: %w", p.deviceName(), err)
	}
	defer m.Close()
	buf := make([]byte, savedTreeBytes)
	if err := m.Lookup(uint32(0), &buf); err != nil {
		return t, fmt.Errorf("read saved egress tree: %w", err)
	}
	n := binary.LittleEndian.Uint32(buf)
	if n > savedTreeBytes-4 {
		return t, fmt.Errorf("read saved egress tree: length %d", n)
	}
	if err := json.NewDecoder(bytes.NewReader(buf[4 : 4+n])).Decode(&t); err != nil {
		return t, fmt.Errorf("decode saved egress tree: %w", err)
	}
	return t, nil
}
