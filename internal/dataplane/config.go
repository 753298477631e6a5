package dataplane

import (
	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// encode turns a solved configuration into the program's struct qj_config, the constants one
// loaded copy of the program runs with (loadObjects). A level without a
// factor sends its traffic at its carrier (model.Factors.Carrier). classids are the HTB classes
// of QJump's egress tree, one per level, in both modes.
func encode(d config.Dataplane, generation uint64, classids [model.NumLevels]uint32) qjumpQjConfig {
	c := qjumpQjConfig{
		EpochNs:      uint64(d.Model.Epoch().Nanoseconds()),
		Generation:   generation,
		VlanId:       uint16(d.VLANID),
		DefaultLevel: uint8(d.DefaultLevel),
		Mode:         uint8(qjumpQjModeQJ_MODE_POLICE),
	}
	if d.Mode == config.Shape {
		c.Mode = uint8(qjumpQjModeQJ_MODE_SHAPE)
	}
	if d.Autoclass {
		c.Flags |= uint32(qjumpQjFlagsQJ_AUTOCLASS)
	}
	if d.Mark.MarksDSCP() {
		c.Flags |= uint32(qjumpQjFlagsQJ_MARK_DSCP)
	}
	if d.Mark.MarksPCP() {
		c.Flags |= uint32(qjumpQjFlagsQJ_MARK_PCP)
	}
	for p, l := range d.PriorityLevels {
		c.PrioLevel[p] = uint8(qjumpQjConstantsQJ_UNCLASSIFIED)
		if l != config.Unclassified {
			c.PrioLevel[p] = uint8(l)
		}
	}
	for l := range model.NumLevels {
		// Validate guarantees a configured level, so every level has a carrier.
		carrier, _ := d.Model.Factors.Carrier(model.Level(l))
		c.Carrier[l] = uint8(carrier)
		lv := &c.Level[l]
		lv.Dscp, lv.Pcp, lv.Classid = uint8(d.DSCP[l]), uint8(d.PCP[l]), classids[l]
		if f, ok := d.Model.Factors[model.Level(l)]; ok {
			// The program counts a level's bytes in QJ_USED_BITS (40) bits; a budget of a
			// terabyte or more per epoch is no limit at all.
			if b, limited := d.Model.Budget(f); limited && b < 1<<qjumpQjConstantsQJ_USED_BITS {
				lv.Budget, lv.Limited = uint64(b), 1
			}
		}
	}
	return c
}
