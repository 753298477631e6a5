package dataplane

import (
	"fmt"
	"sync"

	"github.com/cilium/ebpf"
)

// qjumpSpec is the program and its maps as compiled (qjump_bpfel.o), parsed once per process and
// never changed: a load that adjusts it (pinning) works on a copy.
var qjumpSpec = sync.OnceValues(loadQjump)

// loadObjects loads the program and its maps. cgroup_ceilings and ceiling_depths are pinned by
// name under pinRoot, so every program on every device shares one set of ceilings; pinRoot ""
// keeps them private (tests). The layout map comes along (bpf2go's struct names every map); it
// only carries the shared types in BTF, and nothing reads it.
func loadObjects(pinRoot string) (*qjumpObjects, error) {
	shared, err := qjumpSpec()
	if err != nil {
		return nil, err
	}
	spec := shared.Copy()
	if pinRoot == "" {
		spec.Maps[qjumpMapCgroupCeilings].Pinning = ebpf.PinNone
		spec.Maps[qjumpMapCeilingDepths].Pinning = ebpf.PinNone
	}
	var objs qjumpObjects
	opts := &ebpf.CollectionOptions{Maps: ebpf.MapOptions{PinPath: pinRoot}}
	if err := spec.LoadAndAssign(&objs, opts); err != nil {
		return nil, err
	}
	return &objs, nil
}

// pinAll pins the program and its per-device maps under p.device.
func pinAll(o *qjumpObjects, p paths) error {
	for name, obj := range map[string]interface{ Pin(string) error }{
		pinProg: o.QjumpEgress, pinConfig: o.Config, pinBudget: o.Budget, pinCounters: o.Counters,
	} {
		if err := obj.Pin(p.pin(name)); err != nil {
			return fmt.Errorf("pin %s: %w", name, err)
		}
	}
	return nil
}
