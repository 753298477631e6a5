package barrier

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

const (
	magic       uint32 = 0x716a6272 // "qjbr"
	frameHeader        = 4 + 2 + 2 + 8
	roundHello         = 0          // first frame on a connection: who is calling
	roundBye           = ^uint64(0) // the sender's run is over
)

func frame(buf []byte, id int, round uint64) []byte {
	binary.BigEndian.PutUint32(buf[0:], magic)
	binary.BigEndian.PutUint16(buf[4:], uint16(id))
	binary.BigEndian.PutUint64(buf[8:], round)
	return buf
}

func readFrame(r io.Reader, buf []byte) (id int, round uint64, err error) {
	if _, err := io.ReadFull(r, buf); err != nil {
		return 0, 0, err
	}
	if binary.BigEndian.Uint32(buf) != magic {
		return 0, 0, errors.New("not a barrier message")
	}
	return int(binary.BigEndian.Uint16(buf[4:])), binary.BigEndian.Uint64(buf[8:]), nil
}

// mesh is one connection to every peer (nil at this participant's own index).
type mesh struct {
	conns []net.Conn
}

// connect joins the mesh: a participant dials every lower id and accepts every higher one, so
// each pair has exactly one connection; the dialler's first frame says who it is.
func connect(ctx context.Context, o Options, ln net.Listener) (*mesh, error) {
	m := &mesh{conns: make([]net.Conn, len(o.Peers))}
	end := time.Now().Add(o.Connect)
	buf := make([]byte, o.Size)
	for j := 0; j < o.ID; j++ {
		c, err := dial(ctx, o.Peers[j], end)
		if err != nil {
			m.close()
			return nil, fmt.Errorf("connect to participant %d (%s) within %s: %w", j, o.Peers[j], model.DurationText(o.Connect), err)
		}
		m.conns[j] = c
		if _, err := c.Write(frame(buf, o.ID, roundHello)); err != nil {
			m.close()
			return nil, fmt.Errorf("greet participant %d: %w", j, err)
		}
	}
	stop := context.AfterFunc(ctx, func() { _ = ln.(*net.TCPListener).SetDeadline(time.Now()) })
	defer stop()
	_ = ln.(*net.TCPListener).SetDeadline(end)
	for n := len(o.Peers) - 1 - o.ID; n > 0; n-- {
		c, err := ln.Accept()
		if err != nil {
			m.close()
			return nil, fmt.Errorf("participant(s) %v did not connect within %s: %w", m.missing(o.ID), model.DurationText(o.Connect), err)
		}
		_ = c.SetReadDeadline(end)
		id, round, err := readFrame(c, buf)
		_ = c.SetReadDeadline(time.Time{})
		if err != nil || round != roundHello || id <= o.ID || id >= len(o.Peers) || m.conns[id] != nil {
			c.Close()
			n++ // not a peer we are waiting for: keep waiting
			continue
		}
		_ = c.(*net.TCPConn).SetNoDelay(true)
		m.conns[id] = c
	}
	return m, nil
}

func dial(ctx context.Context, addr string, end time.Time) (net.Conn, error) {
	for {
		d := net.Dialer{Deadline: end}
		c, err := d.DialContext(ctx, "tcp4", addr)
		if err == nil {
			_ = c.(*net.TCPConn).SetNoDelay(true)
			return c, nil
		}
		if ctx.Err() != nil || time.Now().Add(50*time.Millisecond).After(end) {
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// missing lists the peers not connected, this participant aside.
func (m *mesh) missing(self int) []int {
	var out []int
	for j, c := range m.conns {
		if c == nil && j != self {
			out = append(out, j)
		}
	}
	return out
}

func (m *mesh) close() {
	for _, c := range m.conns {
		if c != nil {
			_ = c.Close()
		}
	}
}

// end closes every connection without losing what was sent last. The kernel resets a socket
// closed with data unread (peers' frames for rounds this participant will not wait for) and drops
// what it had not sent yet: on a congested path that can be the goodbye, and the peer then fails
// with "connection reset by peer" instead of ending its run with ours. So each connection is
// half-closed first, its goodbye and end queued behind what was sent, and read to the peer's end
// (each peer half-closes likewise once it ends) for at most linger before it is closed.
func (m *mesh) end(linger time.Duration) {
	deadline := time.Now().Add(linger)
	var wg sync.WaitGroup
	for _, c := range m.conns {
		if c == nil {
			continue
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(deadline)
			_, _ = io.Copy(io.Discard, c)
			_ = c.Close()
		}()
	}
	wg.Wait()
}
