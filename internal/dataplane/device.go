package dataplane

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// ErrNotEthernet means the device's frames do not start with an Ethernet header (tun,
// WireGuard, other layer-3 devices), so the program would read part of an IP address as the
// ethertype and classify and mark garbage.
var ErrNotEthernet = errors.New("not an Ethernet device")

// checkEthernet refuses a device that does not carry Ethernet frames. Loopback does: the kernel
// gives its frames an Ethernet header.
func checkEthernet(l netlink.Link) error {
	a := l.Attrs()
	switch a.EncapType {
	case "ether", "loopback":
		return nil
	}
	return fmt.Errorf("%w: %s is a %s device with link type %s; QJump's program parses Ethernet frames only",
		ErrNotEthernet, a.Name, l.Type(), a.EncapType)
}

// PoliceWarnings says what police mode will do to TCP on the device: TCP always hands TC egress
// GSO packets of up to the device's gso_max_size, segmented only after the qdisc, and a limited
// level whose budget is smaller can never send one (each is dropped as larger than the budget).
// None for shape mode, whose shaper segments them, or for a device that is not there.
func PoliceWarnings(device string, d config.Dataplane) []string {
	if d.Mode != config.Police {
		return nil
	}
	l, err := netlink.LinkByName(device)
	if err != nil || l.Attrs().GSOMaxSize == 0 {
		return nil
	}
	gso := model.Bytes(l.Attrs().GSOMaxSize)
	var levels []string
	for lv := model.NumLevels - 1; lv >= 0; lv-- {
		f, ok := d.Model.Factors[model.Level(lv)]
		if !ok {
			continue
		}
		if b, limited := d.Model.Budget(f); limited && b < gso {
			levels = append(levels, fmt.Sprintf("%d (%s)", lv, b))
		}
	}
	if len(levels) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("police mode: TCP sends GSO packets of up to %s on %s (its gso_max_size), which "+
		"the budgets of levels %s can never pass: they are dropped as larger than the budget. "+
		"TCP at a limited level needs --mode shape", gso, device, strings.Join(levels, ", "))}
}
