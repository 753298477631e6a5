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
// longer one full frame; reload resolves it again. Nothing for a device that is gone.
func statusWarnings(st dataplane.Status, mtu mtuOf) []string {
	if !st.Attached {
		return nil
	}
	n, err := mtu(st.Device)
	if err != nil {
		return nil
	}
	d := st.Config
	frame := model.FullFrameWire(n, d.Mark.MarksPCP())
	var w []string
	if d.AutoPacket && d.Model.Packet != frame {
		w = append(w, fmt.Sprintf("P is auto, one full frame of %s, but runs at %s: the device's full frame is %s "+
			"now (MTU %d); qjump reload --dev %s --packet auto resolves it again", st.Device, d.Model.Packet, frame, n, st.Device))
	}
	d.Model.MaxFrame = frame
	return append(w, d.Model.Warnings()...)
}
