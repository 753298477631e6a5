package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// The config map holds the active struct qj_config (bpf/qjump.h) in a frozen inner map, which
// installConfig swaps whole.

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

// installConfig makes c the active configuration of the program whose outer config map is outer:
// it writes c into a fresh inner map, freezes it so nothing can change it afterwards, and swaps
// it into the outer map's only slot. The kernel swaps the inner map pointer atomically and frees
// the old inner map only after every program that looked it up has finished, so each packet sees
// one whole configuration.
func installConfig(outer *ebpf.Map, c qjumpQjConfig) error {
	spec, err := qjumpSpec()
	if err != nil {
		return err
	}
	inner, err := ebpf.NewMap(spec.Maps[qjumpMapConfig].InnerMap)
	if err != nil {
		return err
	}
	defer inner.Close()
	if err := inner.Put(uint32(0), c); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := inner.Freeze(); err != nil {
		return err
	}
	if err := outer.Put(uint32(0), inner); err != nil {
		return fmt.Errorf("swap config: %w", err)
	}
	return nil
}

// activeConfig reads the configuration the program currently uses.
func activeConfig(outer *ebpf.Map) (qjumpQjConfig, error) {
	var c qjumpQjConfig
	var id ebpf.MapID
	if err := outer.Lookup(uint32(0), &id); err != nil {
		return c, fmt.Errorf("read config slot: %w", err)
	}
	inner, err := ebpf.NewMapFromID(id)
	if err != nil {
		return c, fmt.Errorf("open config map: %w", err)
	}
	defer inner.Close()
	if err := inner.Lookup(uint32(0), &c); err != nil {
		return c, fmt.Errorf("read config: %w", err)
	}
	return c, nil
}
