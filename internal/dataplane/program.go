package dataplane

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/cilium/ebpf"
)

// qjumpSpec is the program and its maps as compiled (qjump_bpfel.o), parsed once per process and
// never changed: a load that adjusts it (its configuration, pinning) works on a copy.
var qjumpSpec = sync.OnceValues(loadQjump)

// loadObjects loads one copy of the program with c as its configuration (constants the verifier
// sees) and its maps. A map in reuse (by name) is used instead of a new one: a reload keeps the
// device's budgets, counters and demotions. cgroup_ceilings and ceiling_depths are pinned by name
// under pinRoot, so every program on every device shares one set of ceilings; pinRoot "" keeps
// them private (tests). Pinned ones that do not fit this build's (mapFits: of another size, or
// layout, or without BTF) are refused with an error that wraps ebpf.ErrMapIncompatible. The
// layout map comes along (bpf2go's struct names every map); it only carries the shared types in
// BTF, and nothing reads it.
func loadObjects(pinRoot string, c qjumpQjConfig, reuse map[string]*ebpf.Map) (*qjumpObjects, error) {
	shared, err := qjumpSpec()
	if err != nil {
		return nil, err
	}
	spec := shared.Copy()
	if pinRoot == "" {
		spec.Maps[qjumpMapCgroupCeilings].Pinning = ebpf.PinNone
		spec.Maps[qjumpMapCeilingDepths].Pinning = ebpf.PinNone
	}
	if pinRoot != "" {
		// The loader takes pinned shared maps over when their sizes fit; their layout is this one's.
		if err := sharedMapsFit(pinRoot, spec); err != nil {
			return nil, err
		}
	}
	if err := spec.Variables[qjumpVarConfig].Set(c); err != nil {
		return nil, fmt.Errorf("set configuration: %w", err)
	}
	var objs qjumpObjects
	opts := &ebpf.CollectionOptions{Maps: ebpf.MapOptions{PinPath: pinRoot}, MapReplacements: reuse}
	err = spec.LoadAndAssign(&objs, opts)
	// Another qjump pinned a shared map between this load's look for the pin and its own pin
	// (several devices or namespaces brought up at once): the pin is there now, and loading again
	// opens it. Each of the two shared maps can be lost this way once.
	for retry := 0; retry < 2 && errors.Is(err, fs.ErrExist); retry++ {
		err = spec.LoadAndAssign(&objs, opts)
	}
	if err != nil {
		return nil, err
	}
	return &objs, nil
}

// perDevice names the maps that belong to one device and outlive a reload, by pin name.
func (o *qjumpObjects) perDevice() map[string]*ebpf.Map {
	return map[string]*ebpf.Map{pinBudget: o.Budget, pinCounters: o.Counters, pinDemotions: o.Demotions}
}

// pinAll pins the program and its per-device maps under p.device.
func pinAll(o *qjumpObjects, p paths) error {
	if err := o.QjumpEgress.Pin(p.pin(pinProg)); err != nil {
		return fmt.Errorf("pin %s: %w", pinProg, err)
	}
	for name, m := range o.perDevice() {
		if err := m.Pin(p.pin(name)); err != nil {
			return fmt.Errorf("pin %s: %w", name, err)
		}
	}
	return nil
}

// deviceMapsFit says whether this build's program can take over a device's pinned maps (by their
// names in the program, as pinnedMaps gives them): nil, or why not. It compares what the kernel
// does (the maps' type, sizes and flags) and also the layout of their values, from the BTF each
// map was made with (mapFits): a build that reorders a value's fields at the same size would
// otherwise be handed the old build's budgets and counters as its own. A map without BTF does not
// fit (its values' meaning cannot be told): the reload refuses, and a down and up makes new maps.
func deviceMapsFit(maps map[string]*ebpf.Map) error {
	spec, err := qjumpSpec()
	if err != nil {
		return err
	}
	for name, m := range maps {
		if err := mapFits(spec.Maps[name], m); err != nil {
			return fmt.Errorf("map %s: %w", name, err)
		}
	}
	return nil
}

// pinnedMaps opens the per-device maps a running device has pinned, by their names in the
// program, for a reload to reuse. The caller closes them.
func pinnedMaps(p paths) (map[string]*ebpf.Map, error) {
	out := map[string]*ebpf.Map{}
	for pin, name := range map[string]string{pinBudget: qjumpMapBudget, pinCounters: qjumpMapCounters, pinDemotions: qjumpMapDemotions} {
		m, err := ebpf.LoadPinnedMap(p.pin(pin), nil)
		if err != nil {
			closeAll(out)
			return nil, fmt.Errorf("open %s map: %w", pin, err)
		}
		out[name] = m
	}
	return out, nil
}

func closeAll(maps map[string]*ebpf.Map) {
	for _, m := range maps {
		m.Close()
	}
}
