package dataplane

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/vishvananda/netlink"
)

// replaceProgram puts prog in the place of the program on the device's hook in one step, as a
// reload does: the TCX link's program is swapped (BPF_LINK_UPDATE), or the cls_bpf filter is
// replaced by one with the same handle and priority. Either way the kernel switches under RCU, so
// each packet runs the old copy or the new one whole. The pinned program follows.
func replaceProgram(p paths, rec record, prog *ebpf.Program) error {
	switch rec.Attach {
	case AttachTCX:
		l, err := link.LoadPinnedLink(p.pin(pinLink), nil)
		if err != nil {
			return fmt.Errorf("open tcx link: %w", err)
		}
		defer l.Close()
		if err := l.Update(prog); err != nil {
			return fmt.Errorf("update tcx link: %w", err)
		}
	case AttachClsact:
		f := clsactFilter(rec.Ifindex)
		f.Fd, f.Name, f.DirectAction = prog.FD(), "qjump", true
		if err := netlink.FilterReplace(f); err != nil {
			return fmt.Errorf("replace cls_bpf filter: %w", err)
		}
	default:
		return fmt.Errorf("replace program: unknown hook %q", rec.Attach)
	}
	if err := os.Remove(p.pin(pinProg)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("unpin old program: %w", err)
	}
	if err := prog.Pin(p.pin(pinProg)); err != nil {
		return fmt.Errorf("pin program: %w", err)
	}
	return nil
}
