package agent

import (
	"context"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// TestLinkWatchOutlivesItsSubscription: the netlink library ends a link subscription on any
// receive error (ENOBUFS on a node making veths in bursts). The watch subscribes again and tells
// the loop that events were lost, then forwards the new subscription's events: before, it
// returned, and interfaces were only picked up by the periodic resync.
func TestLinkWatchOutlivesItsSubscription(t *testing.T) {
	var subs []chan netlink.LinkUpdate
	made := make(chan chan netlink.LinkUpdate, 4)
	linkSubscriber = func(chan<- error) (chan netlink.LinkUpdate, chan struct{}, error) {
		ch := make(chan netlink.LinkUpdate, 4)
		made <- ch
		return ch, make(chan struct{}), nil
	}
	t.Cleanup(func() { linkSubscriber = subscribeLinks })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errs := make(chan linkEvent, 8), make(chan error, 8)
	if err := watchLinks(ctx, out, errs); err != nil {
		t.Fatal(err)
	}
	update := func(name string) netlink.LinkUpdate {
		u := netlink.LinkUpdate{Link: &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: name}}}
		u.Header.Type = unix.RTM_NEWLINK
		return u
	}
	next := func() linkEvent {
		t.Helper()
		select {
		case ev := <-out:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no link event within 5 s")
			return linkEvent{}
		}
	}
	subs = append(subs, <-made)
	subs[0] <- update("eth1")
	if ev := next(); ev.name != "eth1" || ev.lost {
		t.Fatalf("first event %+v, want eth1", ev)
	}
	close(subs[0]) // what the library does on a receive error
	select {
	case ch := <-made:
		subs = append(subs, ch)
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not subscribe again after its subscription ended")
	}
	if ev := next(); !ev.lost {
		t.Fatalf("after the subscription ended: %+v, want the lost-events mark", ev)
	}
	subs[1] <- update("eth2")
	if ev := next(); ev.name != "eth2" {
		t.Fatalf("after subscribing again: %+v, want eth2", ev)
	}
}

// TestLinkEventOfAnotherInterface: the event of an interface the file does not match (every pod's
// veth on a Kubernetes node) is one of ours renamed only if it carries the index of one of ours;
// it used to look every interface of ours up by name, at each such event. The interfaces of ours
// here do not exist, so any lookup would find them gone and make the agent look at everything,
// which takes QJump off (forgets) interfaces it runs on that are not there.
func TestLinkEventOfAnotherInterface(t *testing.T) {
	const file = "hosts: 4\nrate: 1G\nagent:\n  interfaces: [\"qjtest-none*\"]\n"
	a, _, _, err := loggedAgent(t, "", file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ours := func() map[string]int { return map[string]int{"qjtest-gone0": 1_000_001, "qjtest-gone1": 1_000_002} }

	a.devices = ours()
	a.onLink(linkEvent{name: "veth1234", index: 77})
	if len(a.devices) != 2 {
		t.Errorf("an event of another interface made the agent look interfaces up: ours are now %v", a.devices)
	}

	// One of ours under a name the file does not match: its index says so.
	a.onLink(linkEvent{name: "renamed0", index: 1_000_001})
	if len(a.devices) != 0 {
		t.Errorf("one of ours renamed away (same index, new name): ours are still %v, want every one looked at", a.devices)
	}

	// One of ours whose index is not known (read from the saved state, its reconcile failed) is
	// looked up by name, as before.
	a.devices = map[string]int{"qjtest-gone0": 0}
	a.onLink(linkEvent{name: "veth1234", index: 77})
	if len(a.devices) != 0 {
		t.Errorf("one of ours of unknown index, gone by name: ours are still %v, want every one looked at", a.devices)
	}
}
