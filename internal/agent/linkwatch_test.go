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
