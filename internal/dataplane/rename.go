package dataplane

import (
	"os"

	"github.com/vishvananda/netlink"
)

// A device's state is kept under its name, but an interface can be renamed while QJump is up on
// it (ip link set X name Y; udev, a container runtime): the program stays attached to it, by
// ifindex, and its state stays under the old name. The verbs follow it to the new name.

// renamedTo is the name the device of rec has now, if it has been renamed since up; "" if not, or
// if there is no device with its ifindex any more.
func renamedTo(rec record) string {
	l, err := netlink.LinkByIndex(rec.Ifindex)
	if err != nil || l.Attrs().Name == rec.Device {
		return ""
	}
	return l.Attrs().Name
}

// followRenames moves the state of every renamed device of p's network namespace to its new
// name, so that up, down and reload given that name find it, and the old name is free for another
// interface. A new name that already has state of its own is left alone (down of either name
// sorts it out). Under the state lock.
func followRenames(p paths) {
	names, _ := deviceNames(p)
	for _, name := range names {
		from := p.forDevice(name)
		rec, err := readRecord(from)
		if err != nil {
			continue
		}
		now := renamedTo(rec)
		if now == "" {
			continue
		}
		to := p.forDevice(now)
		if _, err := os.Stat(to.device); err == nil {
			continue
		}
		if os.Rename(from.device, to.device) != nil {
			continue
		}
		rec.Device = now
		_ = writeRecord(to, rec)
	}
}

// stateOf is where the state of the device called name is: under its name, or, for a device
// renamed since up whose state no verb has moved yet, under its old name. Reads only.
func stateOf(p paths, name string) paths {
	at := p.forDevice(name)
	if at.exists() {
		return at
	}
	l, err := netlink.LinkByName(name)
	if err != nil {
		return at
	}
	names, _ := deviceNames(p)
	for _, old := range names {
		q := p.forDevice(old)
		if rec, err := readRecord(q); err == nil && rec.Ifindex == l.Attrs().Index && renamedTo(rec) == name {
			return q
		}
	}
	return at
}
