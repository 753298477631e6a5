package dataplane

import (
	"os"
	"path/filepath"

	"github.com/cilium/ebpf/link"

	"github.com/qjump-net/qjump/internal/host"
)

// pruneDead removes the pinned state of devices whose TCX link no longer names a device: the
// device, usually with its whole network namespace, was deleted without `qjump down`. Only the
// pins are left of such a device (the kernel detached the link), and nothing else would ever
// remove them. A device attached through clsact leaves no such trace and is not pruned.
func pruneDead(root string) {
	namespaces, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, ns := range namespaces {
		if !ns.IsDir() || !host.IsNetnsKey(ns.Name()) {
			continue
		}
		nsDir := filepath.Join(root, ns.Name())
		devices, err := os.ReadDir(nsDir)
		if err != nil {
			continue
		}
		for _, dev := range devices {
			dir := filepath.Join(nsDir, dev.Name())
			if tcxLinkDefunct(filepath.Join(dir, pinLink)) {
				_ = os.RemoveAll(dir)
			}
		}
		_ = os.Remove(nsDir) // only if now empty
	}
}

func tcxLinkDefunct(pin string) bool {
	l, err := link.LoadPinnedLink(pin, nil)
	if err != nil {
		return false // no link pinned: clsact, or an up still in progress
	}
	defer l.Close()
	info, err := l.Info()
	return err == nil && info.TCX() != nil && info.TCX().Ifindex == 0
}
