package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// linkEvent is an interface that appeared, changed or disappeared; lost (no name) says events
// may have been lost, so every interface must be looked at again.
type linkEvent struct {
	name    string
	index   int
	deleted bool
	lost    bool
}

// linkEventBuffer is the netlink socket's receive buffer: a node where pods come and go makes
// veths in bursts, and a full buffer (ENOBUFS) ends the subscription.
const linkEventBuffer = 1 << 20

// watchLinks sends the netlink link events of this network namespace. The loop reconciles the
// named interface at once, so one that appears or comes back gets QJump within milliseconds, and
// one that is deleted has its pins removed. The subscription ends on any receive error (the
// netlink library closes it); then it is made again, and a lost event tells the loop to look at
// every interface, since what happened in between was not seen.
func watchLinks(ctx context.Context, out chan<- linkEvent, errs chan<- error) error {
	updates, done, err := linkSubscriber(errs)
	if err != nil {
		return fmt.Errorf("subscribe to link events: %w", err)
	}
	go func() {
		for {
			forwardLinks(ctx, updates, out)
			close(done)
			for {
				if ctx.Err() != nil {
					return
				}
				if updates, done, err = linkSubscriber(errs); err == nil {
					break
				}
				report(errs, fmt.Errorf("subscribe to link events again: %w", err))
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
			}
			select {
			case out <- linkEvent{lost: true}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return nil
}

// linkSubscriber opens a subscription to link events; a test makes its own end.
var linkSubscriber = subscribeLinks

// subscribeLinks opens a subscription to link events.
func subscribeLinks(errs chan<- error) (chan netlink.LinkUpdate, chan struct{}, error) {
	updates := make(chan netlink.LinkUpdate, 64)
	done := make(chan struct{})
	opts := netlink.LinkSubscribeOptions{
		ErrorCallback:     func(err error) { report(errs, fmt.Errorf("link events: %w", err)) },
		ReceiveBufferSize: linkEventBuffer,
	}
	if err := netlink.LinkSubscribeWithOptions(updates, done, opts); err != nil {
		return nil, nil, err
	}
	return updates, done, nil
}

// forwardLinks sends each update on out until the subscription ends or ctx does.
func forwardLinks(ctx context.Context, updates <-chan netlink.LinkUpdate, out chan<- linkEvent) {
	for {
		select {
		case <-ctx.Done():
			return
		case u, ok := <-updates:
			if !ok {
				return
			}
			ev := linkEvent{name: u.Attrs().Name, index: u.Attrs().Index, deleted: u.Header.Type == unix.RTM_DELLINK}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}
}

// report sends err to the loop's log without ever blocking the watch.
func report(errs chan<- error, err error) {
	select {
	case errs <- err:
	default:
	}
}
