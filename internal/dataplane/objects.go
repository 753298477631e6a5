package dataplane

import (
	"fmt"

	"github.com/cilium/ebpf"
)

// Names of the pins in a device's directory.
const (
	pinProg     = "prog"
	pinLink     = "link"
	pinConfig   = "config"
	pinBudget   = "budget"
	pinCounters = "counters"
	pinMeta     = "meta"
)

// objects are the kernel objects of one attached program. config_layout, which only names the
// config struct in BTF, is left out and never created.
type objects struct {
	Prog          *ebpf.Program `ebpf:"qjump_egress"`
	Config        *ebpf.Map     `ebpf:"config"`
	Budget        *ebpf.Map     `ebpf:"budget"`
	Counters      *ebpf.Map     `ebpf:"counters"`
	CgroupCeiling *ebpf.Map     `ebpf:"cgroup_ceiling"`
}

func (o *objects) Close() {
	for _, c := range []interface{ Close() error }{o.Prog, o.Config, o.Budget, o.Counters, o.CgroupCeiling} {
		if c != nil {
			_ = c.Close()
		}
	}
}

// loadObjects loads the program and its maps. cgroup_ceiling is pinned by name under pinRoot, so
// every program on every device shares one ceiling map; pinRoot "" keeps it private (tests).
func loadObjects(pinRoot string) (*objects, error) {
	spec, err := loadQjump()
	if err != nil {
		return nil, fmt.Errorf("load qjump spec: %w", err)
	}
	if pinRoot == "" {
		spec.Maps["cgroup_ceiling"].Pinning = ebpf.PinNone
	}
	var objs objects
	opts := &ebpf.CollectionOptions{Maps: ebpf.MapOptions{PinPath: pinRoot}}
	if err := spec.LoadAndAssign(&objs, opts); err != nil {
		return nil, fmt.Errorf("load qjump program: %w", err)
	}
	return &objs, nil
}

// pinAll pins the program and its per-device maps under p.device.
func (o *objects) pinAll(p paths) error {
	for name, obj := range map[string]interface{ Pin(string) error }{
		pinProg: o.Prog, pinConfig: o.Config, pinBudget: o.Budget, pinCounters: o.Counters,
	} {
		if err := obj.Pin(p.pin(name)); err != nil {
			return fmt.Errorf("pin %s: %w", name, err)
		}
	}
	return nil
}
