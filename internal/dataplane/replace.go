package dataplane

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/vishvananda/netlink"
)

// recordWriter writes the record of a reload's new configuration; tests make it fail.
var recordWriter = writeRecord

// installProgram puts prog, a reload's new program, on the device's hook and records next, the
// configuration it runs. If either step fails, the program that ran is put back, so that what runs
// is what the record says: the reload's caller then puts the old egress tree back too, and the
// device runs the configuration it ran, whole (before, the new program stayed on, with the old
// tree and the old record, and the refusal said the old configuration was back).
func installProgram(p paths, rec, next record, prog *ebpf.Program) error {
	running, err := openRunning(p)
	if err != nil {
		return err
	}
	if running != nil {
		defer running.Close()
	}
	err = replaceProgram(p, rec, prog)
	if err == nil {
		err = recordWriter(p, next)
	}
	if err == nil {
		return nil
	}
	if running == nil {
		return fmt.Errorf("%w (the program that ran was not pinned, so the new one stays)", err)
	}
	if back := replaceProgram(p, rec, running); back != nil {
		return errors.Join(err, fmt.Errorf("put the program that ran back: %w", back))
	}
	return fmt.Errorf("%w (the program that ran is back)", err)
}

// openRunning opens the program the device runs, as pinned, or nil if none is. The handle is a
// clone, not tied to the pin: cilium/ebpf pins an object opened from a path at that path as done
// already, and replaceProgram removes the pin before it pins again.
func openRunning(p paths) (*ebpf.Program, error) {
	pinned, err := ebpf.LoadPinnedProgram(p.pin(pinProg), nil)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open the program that runs: %w", err)
	}
	defer pinned.Close()
	running, err := pinned.Clone()
	if err != nil {
		return nil, fmt.Errorf("open the program that runs: %w", err)
	}
	return running, nil
}

// replaceProgram puts prog in the place of the program on the device's hook in one step, as a
// reload does: the TCX link's program is swapped (BPF_LINK_UPDATE), or the cls_bpf filter is
// replaced by one with the same handle and pref (the record's). Either way the kernel switches
// under RCU, so each packet runs the old copy or the new one whole. The pinned program follows.
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
		f := clsactFilter(rec.Ifindex, rec.filterPriority())
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
