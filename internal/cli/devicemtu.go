package cli

import (
	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
)

// mtuOf returns the MTU of a network device in this network namespace.
type mtuOf func(dev string) (int, error)

// deviceMTU is mtuOf for the real devices; a missing one is bad input (--dev).
func deviceMTU(dev string) (int, error) {
	link, err := netlink.LinkByName(dev)
	if err != nil {
		return 0, noDevice(dev)
	}
	return link.Attrs().MTU, nil
}

// forDevice resolves P (auto: one full frame of the device) and the device's largest frame from
// dev's MTU, as up, reload and run --sndbuf auto all do before solving target rates in units of P.
func forDevice(d config.Dataplane, dev string, mtu mtuOf) (config.Dataplane, error) {
	n, err := mtu(dev)
	if err != nil {
		return d, err
	}
	return d.ResolvePacket(n)
}
