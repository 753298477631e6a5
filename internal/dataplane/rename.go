package dataplane

import (
	"os"

	"github.com/vishvananda/netlink"
)

// A device's state is kept under its name, but an interface can be renamed while QJump is up on
// it (ip link set X name Y; udev, a container runtime): the program stays attached to it, by
// ifindex, and its state stays under the old name. The verbs follow it to the new name.

// nameNow is the name the device of r has now: r.Device, unless it has been renamed since up. A
// device that is gone keeps the name it had.
func (r record) nameNow() string {
	if l, err := netlink.LinkByIndex(r.Ifindex); err == nil {
		return l.Attrs().Name
	}
	return r.Device
}

// renamed is the state of a device renamed since up: where it is, its record, the name it has now.
type renamed struct {
	at  paths
	rec record
	now string
}

// renames lists the devices of p's network namespace renamed since up.
func renames(p paths) []renamed {
	var out []renamed
	names, _ := deviceNames(p)
	for _, name := range names {
		at := p.forDevice(name)
		rec, err := readRecord(at)
		if err != nil {
			continue
		}
		if now := rec.nameNow(); now != rec.Device {
			out = append(out, renamed{at, rec, now})
		}
	}
	return out
}

// followRenames moves the state of every renamed device of p's network namespace to its new
// name, so that up and reload given that name find it, and the old name is free for another
// interface. A new name that already has state of its own is left alone (down of either name
// sorts it out). Under the state lock.
func followRenames(p paths) {
	for _, r := range renames(p) {
		to := p.forDevice(r.now)
		if _, err := os.Stat(to.device); err == nil {
			continue
		}
		if os.Rename(r.at.device, to.device) != nil {
			continue
		}
		r.rec.Device = r.now
		_ = writeRecord(to, r.rec)
	}
}

// stateOf is where the state of the device called name is: under that name (the device's name at
// up, even if it has been renamed since), or else under the old name of the device called name
// now.
func stateOf(p paths, name string) paths {
	at := p.forDevice(name)
	if at.exists() {
		return at
	}
	for _, r := range renames(p) {
		if r.now == name {
			return r.at
		}
	}
	return at
}
