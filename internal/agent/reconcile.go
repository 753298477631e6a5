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
	Reloaded Action = "reloaded" // up with another configuration, or its egress tree gone: dataplane.Reload, atomic
	Replaced Action = "replaced" // stale (interface re-created) or another mode: down, then up
	Removed  Action = "down"     // the interface went away: its pins are removed
)

// reconcileDevice makes dev run want. It never detaches what already runs want, so a restarted
// agent changes nothing on the wire.
func reconcileDevice(dev string, want config.Dataplane) (Action, error) {
	st, err := dataplane.DeviceStatus(dev)
	switch {
	case errors.Is(err, dataplane.ErrNotUp):
		// Replace: what QJump left on the interface with its state lost is the agent's to replace.
		return Brought, upReplacing(dev, want)
	case err != nil:
		return "", err
	case !st.Attached:
		// Pins of an interface that was deleted (and perhaps re-created under the same name):
		// nothing on the wire to keep, start over.
		return Replaced, upReplacing(dev, want)
	case sameConfig(st.Config, want) && st.TreeGone == "":
		return Adopted, nil
	case st.Config.Mode != want.Mode:
		// Shape mode owns an HTB tree that police mode does not: the only way across is down and
		// up, which leaves the interface unlimited for the few milliseconds between. If the kernel
		// refuses the new up, dataplane.Up puts the running configuration back: an interface the
		// agent runs must not be left unlimited until the next resync tries again.
		return Replaced, upReplacing(dev, want)
	}
	// Another configuration, or the egress tree deleted or replaced by hand: a reload builds a gone
	// tree again whole (it looks under the state lock), budgets and counters carrying on.
	return Reloaded, dataplane.Reload(dev, want)
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
