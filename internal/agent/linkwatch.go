package agent

import (
	"context"
	"fmt"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// linkEvent is an interface that appeared, changed or disappeared.
type linkEvent struct {
	name    string
	deleted bool
}

// watchLinks sends the netlink link events of this network namespace. The loop reconciles the
// named interface at once, so one that appears or comes back gets QJump within milliseconds, and
// one that is deleted has its pins removed.
func watchLinks(ctx context.Context, out chan<- linkEvent, errs chan<- error) error {
	updates := make(chan netlink.LinkUpdate, 64)
	done := make(chan struct{})
	opts := netlink.LinkSubscribeOptions{ErrorCallback: func(err error) {
		select {
		case errs <- fmt.Errorf("link events: %w", err):
		default:
		}
	}}
	if err := netlink.LinkSubscribeWithOptions(updates, done, opts); err != nil {
		return fmt.Errorf("subscribe to link events: %w", err)
	}
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case u, ok := <-updates:
				if !ok {
					return
				}
				ev := linkEvent{name: u.Attrs().Name, deleted: u.Header.Type == unix.RTM_DELLINK}
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return nil
}
