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

// renames lists the devices of p's network namespace renamed since up: those whose state is under
// another name than theirs now. A device gone keeps the name its record gives it, so state left
// under a name of followRenames' own (a move it did not finish) is moved on too.
func renames(p paths) []renamed {
	var out []renamed
	names, _ := deviceNames(p)
	for _, name := range names {
		at := p.forDevice(name)
		rec, err := readRecord(at)
		if err != nil {
			continue
		}
		if now := rec.nameNow(); now != name {
			out = append(out, renamed{at, rec, now})
		}
	}
	return out
}

// movingSuffix makes the name a state moves through on its way to another (followRenames): a ':'
// is in no interface's name, so it is never one.
const movingSuffix = ":moving"

// followRenames moves the state of every renamed device of p's network namespace to its new
// name, so that up and reload given that name find it, and the old name is free for another
// interface. A new name that has state of its own staying there is left alone (down of either
// name sorts it out); one whose state moves on too is taken, so that interfaces that swapped
// names (ip link set eth0 name tmp; eth1 name eth0; tmp name eth1) swap their states, each
// keeping QJump. Every move goes through a name of its own first, so none waits for another.
// Under the state lock.
func followRenames(p paths) {
	moving := movable(p, renames(p))
	var moved []renamed
	for _, r := range moving {
		via := p.forDevice(r.now + movingSuffix)
		// A state already there (a followRenames killed between its two steps) moves on: Go's
		// os.Rename of a directory to itself fails, and it stayed there for good, up taking the
		// live device for an orphan (review, helper-103).
		if r.at.device == via.device || os.Rename(r.at.device, via.device) == nil {
			r.at = via
			moved = append(moved, r)
		}
	}
	for _, r := range moved {
		to := p.forDevice(r.now)
		_ = removeDebris(to) // a killed down's pins without a record: the name is free (movable)
		if os.Rename(r.at.device, to.device) != nil {
			continue // the name is not free after all: renames finds the state where it is next time
		}
		r.rec.Device = r.now
		_ = writeRecord(to, r.rec)
	}
}

// movable is the renames whose state can move to the new name: one free (no record there), or
// whose state moves on too. Two states for one interface (its index reused) go nowhere.
func movable(p paths, rs []renamed) []renamed {
	targets := map[string]int{}
	for _, r := range rs {
		targets[r.now]++
	}
	var moving []renamed
	for _, r := range rs {
		if targets[r.now] == 1 {
			moving = append(moving, r)
		}
	}
	for {
		leaving := map[string]bool{}
		for _, r := range moving {
			leaving[r.at.deviceName()] = true
		}
		var kept []renamed
		for _, r := range moving {
			// A name whose directory has no record is free: what a killed down left there is
			// removed (removeDebris), and it kept a renamed device's live state out (review,
			// helper-102).
			if free(p.forDevice(r.now)) || leaving[r.now] {
				kept = append(kept, r)
			}
		}
		if len(kept) == len(moving) {
			return kept
		}
		moving = kept
	}
}

// FollowRenames moves the state of every device of this network namespace renamed since up to
// its new name, as up and reload do first (followRenames): the agent does it before it looks at
// an interface whose name's state is another's.
func FollowRenames() error {
	p, err := pathsFor("")
	if err != nil {
		return err
	}
	return withState(p.root, false, func() error {
		followRenames(p)
		return nil
	})
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
