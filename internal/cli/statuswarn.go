package cli

import (
	"fmt"

	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/model"
)

// statusWarnings is what status warns about a device as it is now, against the configuration it
// runs: up warned against the device as it was, and the device may have changed since. Its MTU
// raised, full frames get longer than a budget sized for the old one and every one of them is
// dropped as larger than the budget, with nothing else to say why. A P that was auto is no
// longer one full frame; reload resolves it again. A filter put on a clsact egress before QJump's
// since up takes the packets it matches past QJump, as a program put before QJump's on a TCX
// egress does with those it passes or redirects. Nothing for a device that is gone.
func statusWarnings(st dataplane.Status, mtu mtuOf) []string {
	if st.DeviceGone {
		// The state stays until a down: said here too, not only in NOT ATTACHED's advice (review,
		// helper-80: status --json had no warning for a deleted interface).
		return []string{fmt.Sprintf("%s is gone (deleted, or moved to another network namespace): QJump's state for it "+
			"stays until qjump down --dev %s", st.Device, st.Device)}
	}
	if !st.Attached {
		return nil
	}
	w := beforeQJumpWarnings(st)
	n, err := mtu(st.Device)
	if err != nil {
		return w
	}
	d := st.Config
	frame := model.FullFrameWire(n, d.Mark.MarksPCP())
	if d.AutoPacket && d.Model.Packet != frame {
		w = append(w, fmt.Sprintf("P is auto, one full frame of %s, but runs at %s: the device's full frame is %s "+
			"now (MTU %d); qjump reload --dev %s --packet auto resolves it again", st.Device, d.Model.Packet, frame, n, st.Device))
	}
	d.Model.MaxFrame = frame
	return append(w, d.Warnings()...)
}

// beforeQJumpWarnings says, of each filter before QJump's on the clsact egress, that packets it
// matches never reach QJump: the first filter that matches ends the classification; and of each
// program before QJump's on the TCX egress, that packets it passes or redirects never do. Up put
// QJump's first, so these were added since.
func beforeQJumpWarnings(st dataplane.Status) []string {
	var w []string
	for _, p := range st.ProgramsBefore {
		w = append(w, fmt.Sprintf("%s on %s's egress runs before QJump's and can take the packets it passes "+
			"(TCX_PASS) or redirects past QJump, uncounted and unlimited: attach it after QJump's (its link's "+
			"anchor after QJump's program), or bring QJump up again (qjump up --replace) to put its program first", p, st.Device))
	}
	for _, f := range st.FiltersBefore {
		w = append(w, fmt.Sprintf("%s on %s's egress runs before QJump's filter (pref %d) and can take the packets "+
			"it matches past QJump, uncounted and unlimited: add it again at a pref above %d, or bring QJump up "+
			"again (qjump up --replace) to put its filter first", f, st.Device, st.FilterPref, st.FilterPref))
	}
	return w
}
