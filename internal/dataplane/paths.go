package dataplane

import (
	"os"
	"path/filepath"

	"github.com/qjump-net/qjump/internal/host"
)

// paths names where a device's state is pinned: <bpffs>/qjump/<netns cookie>/<ifname>/.
type paths struct {
	root   string // <bpffs>/qjump
	netns  string // <root>/<netns cookie>
	device string // <netns>/<ifname>
}

func pathsFor(dev string) (paths, error) {
	if err := checkPrivilege(); err != nil {
		return paths{}, err
	}
	bpffs, err := host.BPFFS()
	if err != nil {
		return paths{}, err
	}
	return pathsUnder(bpffs, dev)
}

// pathsUnder names the paths of dev in this network namespace on the bpffs mounted at bpffs.
func pathsUnder(bpffs, dev string) (paths, error) {
	ns, err := host.NetnsKey()
	if err != nil {
		return paths{}, err
	}
	root := host.StateDirIn(bpffs)
	p := paths{root: root, netns: filepath.Join(root, ns)}
	if dev != "" {
		p.device = filepath.Join(p.netns, dev)
	}
	return p, nil
}

func (p paths) pin(name string) string     { return filepath.Join(p.device, name) }
func (p paths) cgroupCeiling() string      { return filepath.Join(p.root, "cgroup_ceiling") }
func (p paths) forDevice(dev string) paths { p.device = filepath.Join(p.netns, dev); return p }
func (p paths) deviceName() string         { return filepath.Base(p.device) }
func (p paths) exists() bool               { _, err := os.Stat(p.pin(pinMeta)); return err == nil }
