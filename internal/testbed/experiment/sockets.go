package experiment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
)

// tcpWait is how long a program may take to listen or connect on a loaded machine.
const tcpWait = 10 * time.Second

// tcpState is what awaitTCP waits for: n sockets of host in state on a port, local (a server
// listening) or remote (a client's connections to it).
type tcpState struct {
	host   int
	state  uint8 // netlink.TCP_LISTEN, netlink.TCP_ESTABLISHED
	port   int
	remote bool
	n      int
}

// awaitTCP returns once host's namespace has the sockets w asks for: the event itself (a server
// listens, a client's data connection is up), seen through the kernel's socket diagnostics, so
// that no guess of how long a start takes is needed. It fails if p ends first or within tcpWait.
func (env *Env) awaitTCP(ctx context.Context, p *proc, w tcpState) error {
	ns, err := netns.GetFromName(env.tb.Names.HostNS(w.host))
	if err != nil {
		return fmt.Errorf("open namespace of h%d: %w", w.host, err)
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns, unix.NETLINK_INET_DIAG) // the diagnostics socket must be in ns too
	if err != nil {
		return fmt.Errorf("netlink in h%d: %w", w.host, err)
	}
	defer h.Close()
	for deadline := time.Now().Add(tcpWait); time.Now().Before(deadline); {
		if n, err := countTCP(h, w); err != nil {
			return err
		} else if n >= w.n {
			return nil
		}
		if p.exited() {
			return fmt.Errorf("%s ended at once: %s", p.name, strings.TrimSpace(p.out.String()))
		}
		if err := sleep(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
	return fmt.Errorf("%s: no %d TCP socket(s) in state %d on port %d of h%d within %s", p.name, w.n, w.state, w.port, w.host, model.DurationText(tcpWait))
}

func countTCP(h *netlink.Handle, w tcpState) (int, error) {
	n := 0
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		socks, err := h.SocketDiagTCP(family)
		if err != nil {
			return 0, fmt.Errorf("list TCP sockets of h%d: %w", w.host, err)
		}
		for _, s := range socks {
			port := s.ID.SourcePort
			if w.remote {
				port = s.ID.DestinationPort
			}
			if s.State == w.state && int(port) == w.port {
				n++
			}
		}
	}
	return n, nil
}
