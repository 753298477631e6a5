package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"
)

// installConfig makes c the active configuration of the program whose outer config map is outer:
// it writes c into a fresh inner map, freezes it so nothing can change it afterwards, and swaps
// it into the outer map's only slot. The kernel swaps the inner map pointer atomically and frees
// the old inner map only after every program that looked it up has finished, so each packet sees
// one whole configuration.
func installConfig(outer *ebpf.Map, c qjumpQjConfig) error {
	spec, err := loadQjump()
	if err != nil {
		return fmt.Errorf("load qjump spec: %w", err)
	}
	inner, err := ebpf.NewMap(spec.Maps["config"].InnerMap)
	if err != nil {
		return fmt.Errorf("create config map: %w", err)
	}
	defer inner.Close()
	if err := inner.Put(uint32(0), c); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := inner.Freeze(); err != nil {
		return fmt.Errorf("freeze config: %w", err)
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
