package dataplane

import (
	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/model"
)

// In shape mode the program charges no budget: the level's shaper, a qdisc, holds what is over
// it (and segments GSO packets), so only the shaper knows what it held. "Shaped" is how often it
// held a packet back, its qdisc's overlimits: of the level's TBF (handle tbfMajorBase+level,
// where the egress tree has one), else of the level's HTB class.
const tbfMajorBase = 0x5140

// shaperHeld reads the overlimits of each level's shaper on the device; ok is false when the
// device's qdiscs cannot be read (it is gone).
func shaperHeld(ifindex int) (held [model.NumLevels]uint64, ok bool) {
	l := &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Index: ifindex}}
	qs, err := netlink.QdiscList(l)
	if err != nil {
		return held, false
	}
	var found [model.NumLevels]bool
	for _, q := range qs {
		major := q.Attrs().Handle >> 16
		if lv := int(major) - tbfMajorBase; major >= tbfMajorBase && lv < model.NumLevels {
			if st := q.Attrs().Statistics; st != nil && st.Queue != nil {
				held[lv], found[lv] = uint64(st.Queue.Overlimits), true
			}
		}
	}
	cs, err := netlink.ClassList(l, netlink.MakeHandle(htbMajor, 0))
	if err != nil {
		return held, true
	}
	for _, c := range cs {
		for lv := range model.NumLevels {
			if c.Attrs().Handle == htbClassID(lv) && !found[lv] {
				if st := c.Attrs().Statistics; st != nil && st.Queue != nil {
					held[lv] = uint64(st.Queue.Overlimits)
				}
			}
		}
	}
	return held, true
}
