package twopc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// link is the coordinator's side of a transport: servers are numbered by their place in
// CoordinatorOptions.Servers.
type link interface {
	send(to []int, m message)
	// recv returns the next message from a server, or a server the transport gave up on (failed
	// is its cause), or os.ErrDeadlineExceeded.
	recv(deadline time.Time) (ev event, err error)
	forget(server int)
	stats() (retransmissions, sendErrors int)
	close() error
}

type event struct {
	from   int
	msg    message
	failed error
}

// datagramLink carries the udp and qjump transports.
type datagramLink struct {
	ep        *endpoint
	addrs     []net.Addr
	index     map[string]int
	broadcast net.Addr // qjump: one datagram reaches every server
}

func dialDatagram(o CoordinatorOptions) (*datagramLink, error) {
	l := &datagramLink{index: map[string]int{}}
	for i, s := range o.Servers {
		a, err := net.ResolveUDPAddr("udp4", s)
		if err != nil {
			return nil, fmt.Errorf("resolve server %s: %w", s, err)
		}
		l.addrs = append(l.addrs, a)
		l.index[a.String()] = i
	}
	if o.Broadcast != "" {
		a, err := net.ResolveUDPAddr("udp4", o.Broadcast)
		if err != nil {
			return nil, fmt.Errorf("resolve broadcast %s: %w", o.Broadcast, err)
		}
		l.broadcast = a
	}
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1)
		})
		return errors.Join(err, serr)
	}}
	conn, err := lc.ListenPacket(context.Background(), "udp4", ":0")
	if err != nil {
		return nil, fmt.Errorf("open coordinator socket: %w", err)
	}
	if o.wrap != nil {
		conn = o.wrap(conn)
	}
	l.ep = newEndpoint(conn, o.Transport == UDP, o.Timeout, o.Retries)
	return l, nil
}

func (l *datagramLink) send(to []int, m message) {
	if l.broadcast != nil {
		l.ep.send([]net.Addr{l.broadcast}, m)
		return
	}
	addrs := make([]net.Addr, len(to))
	for i, s := range to {
		addrs[i] = l.addrs[s]
	}
	l.ep.send(addrs, m)
}

func (l *datagramLink) recv(deadline time.Time) (event, error) {
	for {
		from, m, err := l.ep.recv(deadline)
		if from == nil {
			return event{}, err
		}
		i, ok := l.index[from.String()]
		if !ok {
			continue // not one of our servers
		}
		if err != nil {
			return event{from: i, failed: err}, nil
		}
		return event{from: i, msg: m}, nil
	}
}

func (l *datagramLink) forget(server int) { l.ep.forget(l.addrs[server]) }
func (l *datagramLink) stats() (int, int) { return l.ep.retransmissions, l.ep.sendErrors }
func (l *datagramLink) close() error      { return l.ep.conn.Close() }

// tcpLink is one connection per server; a reader goroutine per connection turns frames and
// connection failures into events.
type tcpLink struct {
	conns   []net.Conn
	events  chan event
	local   []event // failures of sends, reported before anything read
	timeout time.Duration
	done    chan struct{}

	sendErrors int
}

func dialTCP(ctx context.Context, o CoordinatorOptions) (*tcpLink, error) {
	l := &tcpLink{events: make(chan event, 64), timeout: o.Timeout, done: make(chan struct{})}
	for _, s := range o.Servers {
		c, err := dialRetrying(ctx, s, o.Connect)
		if err != nil {
			_ = l.close()
			return nil, err
		}
		l.conns = append(l.conns, c)
	}
	for i, c := range l.conns {
		go l.read(i, c)
	}
	return l, nil
}

// dialRetrying connects to addr, trying again until within passes: servers start in other
// namespaces at about the same time as the coordinator.
func dialRetrying(ctx context.Context, addr string, within time.Duration) (net.Conn, error) {
	end := time.Now().Add(within)
	for {
		d := net.Dialer{Timeout: time.Until(end)}
		c, err := d.DialContext(ctx, "tcp4", addr)
		if err == nil {
			_ = c.(*net.TCPConn).SetNoDelay(true)
			return c, nil
		}
		if ctx.Err() != nil || !time.Now().Add(50*time.Millisecond).Before(end) {
			return nil, fmt.Errorf("connect to server %s: %w", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (l *tcpLink) read(i int, c net.Conn) {
	buf := make([]byte, headerLen+MaxSize)
	for {
		m, err := readFrame(c, buf)
		ev := event{from: i, msg: m}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // the server closed: it cannot answer any more
			}
			ev = event{from: i, failed: fmt.Errorf("connection: %w", err)}
		}
		select {
		case l.events <- ev:
		case <-l.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (l *tcpLink) send(to []int, m message) {
	b := m.marshal()
	for _, i := range to {
		// A server that stopped reading fills its window; the deadline keeps us from waiting on it.
		_ = l.conns[i].SetWriteDeadline(time.Now().Add(l.timeout))
		if _, err := l.conns[i].Write(b); err != nil {
			l.sendErrors++
			l.local = append(l.local, event{from: i, failed: fmt.Errorf("connection: %w", err)})
		}
	}
}

func (l *tcpLink) recv(deadline time.Time) (event, error) {
	if len(l.local) > 0 {
		ev := l.local[0]
		l.local = l.local[1:]
		return ev, nil
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case ev := <-l.events:
		return ev, nil
	case <-t.C:
	}
	select { // a reply the readers already hold is in time (see sweepWait)
	case ev := <-l.events:
		return ev, nil
	case <-time.After(sweepWait):
		return event{}, os.ErrDeadlineExceeded
	}
}

// forget closes a dead server's connection: nothing more is sent to it.
func (l *tcpLink) forget(server int) { _ = l.conns[server].Close() }
func (l *tcpLink) stats() (int, int) { return 0, l.sendErrors }

func (l *tcpLink) close() error {
	close(l.done)
	for _, c := range l.conns {
		_ = c.Close()
	}
	return nil
}
