package agent

import (
	"errors"
	"fmt"
	"sort"

	"github.com/vishvananda/netlink"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
)

// Action is what reconciling one interface did.
type Action string

const (
	Adopted  Action = "adopted"  // already up with this configuration: nothing touched
	Brought  Action = "up"       // was not up: dataplane.Up
	Reloaded Action = "reloaded" // up with another configuration, its egress tree gone, or another build's program: dataplane.Reload, atomic
	Replaced Action = "replaced" // stale (interface re-created), another mode, or another build's maps: down, then up
	Removed  Action = "down"     // the interface went away, or the file no longer matches it: its pins are removed
)

// reconcileDevice makes dev run want. It never detaches what already runs want, so a restarted
// agent changes nothing on the wire. renamed is the name now of the interface whose state was
// under dev's name, renamed since up (the state is under its new name now): the agent takes
// QJump off it if the file does not match that name.
func reconcileDevice(dev string, want config.Dataplane) (action Action, renamed string, err error) {
	st, err := dataplane.DeviceStatus(dev)
	if err == nil && st.Device != dev {
		// The state under dev's name is of the interface called dev at up, renamed since (to
		// st.Device): its state moves to its new name, so that it keeps QJump, and dev's own, if
		// it has any (the two swapped names), comes to dev's. Then dev is looked at afresh.
		renamed = st.Device
		if err := dataplane.FollowRenames(); err != nil {
			return "", renamed, err
		}
		st, err = dataplane.DeviceStatus(dev)
	}
	action, err = reconcileStatus(dev, want, st, err)
	return action, renamed, err
}

// reconcileStatus is reconcileDevice once dev's status is st (or err).
func reconcileStatus(dev string, want config.Dataplane, st dataplane.Status, err error) (Action, error) {
	switch {
	case errors.Is(err, dataplane.ErrNotUp):
		// Replace: what QJump left on the interface with its state lost is the agent's to replace.
		return Brought, upReplacing(dev, want)
	case err != nil:
		return "", err
	case st.Device != dev:
		// Still another interface's state, one whose move followRenames left alone: dev is an
		// interface that took its name, with nothing of QJump's on it.
		return Brought, upReplacing(dev, want)
	case !st.Attached:
		// Pins of an interface that was deleted (and perhaps re-created under the same name):
		// nothing on the wire to keep, start over.
		return Replaced, upReplacing(dev, want)
	case adoptable(st, want):
		return Adopted, nil
	case st.Config.Mode != want.Mode:
		// Shape mode owns an HTB tree that police mode does not: the only way across is down and
		// up, which leaves the interface unlimited for the few milliseconds between. If the kernel
		// refuses the new up, dataplane.Up puts the running configuration back: an interface the
		// agent runs must not be left unlimited until the next resync tries again.
		return Replaced, upReplacing(dev, want)
	}
	// Another configuration, the egress tree deleted or replaced by hand, or the program of another
	// qjump build (this agent upgraded since it was loaded): a reload builds a gone tree again whole
	// (it looks under the state lock) and loads this build's program, budgets and counters carrying
	// on.
	err = dataplane.Reload(dev, want)
	if errors.Is(err, dataplane.ErrOtherBuildMaps) {
		// An upgrade that changed the maps' layout: budgets and counters cannot carry on, and only
		// a down and up loads this build's program, as for a change of mode.
		return Replaced, upReplacing(dev, want)
	}
	return Reloaded, err
}

// adoptable says whether a device QJump is up on can be left as it runs: want's configuration,
// its egress tree whole, and the program of this agent's build (an agent upgraded since the
// program was loaded reloads it with its own, or the upgrade's fixes would wait for the next
// change of the file).
func adoptable(st dataplane.Status, want config.Dataplane) bool {
	return sameConfig(st.Config, want) && st.TreeGone == "" && st.ProgramIsThisBuild()
}

// upReplacing brings dev up with want, taking down whatever QJump runs or was left there.
func upReplacing(dev string, want config.Dataplane) error {
	_, err := dataplane.Up(dataplane.UpOptions{Device: dev, Config: want, Replace: true})
	return err
}

// wantFor is what dev should run under spec: the device's own P when the file leaves P to it.
// It also gives dev's ifindex, as found by the same lookup (the agent keeps it to know a rename).
func wantFor(spec Spec, dev string) (config.Dataplane, int, error) {
	l, err := netlink.LinkByName(dev)
	if err != nil {
		return config.Dataplane{}, 0, fmt.Errorf("%w %q", dataplane.ErrNoDevice, dev)
	}
	want, err := spec.ForDevice(l.Attrs().MTU)
	return want, l.Attrs().Index, err
}

// sameConfig compares two solved configurations in their canonical form.
func sameConfig(a, b config.Dataplane) bool {
	return config.Hash(a) == config.Hash(b)
}

// matchingLinks lists the interfaces of this network namespace that sec asks for, by name.
func matchingLinks(sec Section) ([]string, error) {
	links, err := netlink.LinkList()
	if err != nil {
		return nil, fmt.Errorf("list interfaces: %w", err)
	}
	var out []string
	for _, l := range links {
		if name := l.Attrs().Name; sec.Matches(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// goneDevices lists the interfaces QJump has state for in this namespace whose hook is gone
// because the interface is (a deleted interface takes its hook with it, not its pins).
func goneDevices() ([]string, error) {
	all, err := dataplane.List()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, st := range all {
		if _, err := netlink.LinkByName(st.Device); err != nil && !st.Attached {
			out = append(out, st.Device)
		}
	}
	return out, nil
}
