package dataplane

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/host"
)

// Down detaches QJump from the device and removes everything Up created: the hook, the clsact
// qdisc if Up added it, the HTB tree, the pins. A device that is not up is not an error.
func Down(device string) error {
	p, err := pathsFor(device)
	if err != nil {
		return err
	}
	rec, err := readRecord(p)
	if err != nil {
		if errors.Is(err, ErrNotUp) {
			removeEmpty(p)
			return nil
		}
		return err
	}
	return teardown(p, rec)
}

func teardown(p paths, rec record) error {
	err := detach(p, rec)
	if rec.HTB {
		err = errors.Join(err, delHTB(rec.Ifindex))
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(p.device); err != nil {
		return err
	}
	removeEmpty(p)
	return nil
}

// removeEmpty removes the namespace directory once its last device is down and, when no device
// anywhere is up and no cgroup has a ceiling, the shared ceiling map and qjump's directory: down
// leaves bpffs as it was before the first up.
func removeEmpty(p paths) {
	_ = os.Remove(p.netns)
	entries, err := os.ReadDir(p.root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if host.IsNetnsKey(e.Name()) && e.IsDir() {
			return // a network namespace with devices up
		}
	}
	if m, err := ebpf.LoadPinnedMap(p.cgroupCeiling(), nil); err == nil {
		var k uint64
		var v uint8
		empty := !m.Iterate().Next(&k, &v)
		m.Close()
		if !empty {
			return
		}
		_ = os.Remove(p.cgroupCeiling())
	}
	_ = os.Remove(filepath.Clean(p.root))
}
