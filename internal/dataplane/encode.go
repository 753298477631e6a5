package dataplane

import (
	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// Flag bits and modes of struct qj_config (bpf/qjump.h).
const (
	flagAutoclass = 1 << 0
	flagMarkDSCP  = 1 << 1
	flagMarkPCP   = 1 << 2

	modePolice = 0
	modeShape  = 1

	unclassified = 0xff

	maxBudget = 1 << 40 // QJ_USED_BITS
)

// encode turns a solved configuration into the program's struct qj_config. A level without a
// factor sends its traffic at its carrier (model.Factors.Carrier). classids are the HTB classes
// of shape mode (zero in police mode).
func encode(d config.Dataplane, generation uint64, classids [model.NumLevels]uint32, txQueues int) qjumpQjConfig {
	c := qjumpQjConfig{
		EpochNs:      uint64(d.Model.Epoch().Nanoseconds()),
		Generation:   generation,
		VlanId:       uint16(d.VLANID),
		DefaultLevel: uint8(d.DefaultLevel),
		TxQueues:     uint16(txQueues),
	}
	if d.Mode == config.Shape {
		c.Mode = modeShape
	}
	if d.Autoclass {
		c.Flags |= flagAutoclass
	}
	if d.Mark.MarksDSCP() {
		c.Flags |= flagMarkDSCP
	}
	if d.Mark.MarksPCP() {
		c.Flags |= flagMarkPCP
	}
	for p, l := range d.PriorityLevels {
		c.PrioLevel[p] = unclassified
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
			// The program counts a level's bytes in 40 bits; a budget of a terabyte or more per
			// epoch is no limit at all.
			if b, limited := d.Model.Budget(f); limited && b < maxBudget {
				lv.Budget, lv.Limited = uint64(b), 1
			}
		}
	}
	return c
}
