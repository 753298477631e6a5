package twopc

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// endpoint sends and receives messages as UDP datagrams. With acks (the udp transport) every data
// datagram gets a sequence number, the receiver acknowledges it and drops duplicates, and the
// sender retransmits until acknowledged or out of retries; without (qjump) each is sent once.
// One goroutine uses it: retransmissions happen inside recv, which the owner calls in its loop.
type endpoint struct {
	conn    net.PacketConn
	acks    bool
	timeout time.Duration
	retries int

	seq     uint64
	pending map[uint64]*unacked
	seen    map[string]*seqWindow
	buf     []byte

	retransmissions int
	sendErrors      int
}

// unacked is a data datagram waiting for its acknowledgement.
type unacked struct {
	to    net.Addr
	b     []byte
	due   time.Time
	tries int
}

func newEndpoint(conn net.PacketConn, acks bool, timeout time.Duration, retries int) *endpoint {
	return &endpoint{conn: conn, acks: acks, timeout: timeout, retries: retries,
		pending: map[uint64]*unacked{}, seen: map[string]*seqWindow{}, buf: make([]byte, 65536)}
}

// errPeerFailed is what recv reports for a peer that acknowledged nothing after every retry.
var errPeerFailed = errors.New("peer failed")

// send writes m to each address, as its own datagram.
func (e *endpoint) send(to []net.Addr, m message) {
	for _, a := range to {
		if e.acks {
			e.seq++
			m.seq = e.seq
		}
		b := m.marshal()
		e.write(b, a)
		if e.acks {
			e.pending[m.seq] = &unacked{to: a, b: b, due: time.Now().Add(e.timeout)}
		}
	}
}

// write sends one datagram. A refused send (a full host queue says ENOBUFS) is a lost datagram:
// retransmission or the reply deadline deals with it, as with a loss in the network.
func (e *endpoint) write(b []byte, to net.Addr) {
	if _, err := e.conn.WriteTo(b, to); err != nil {
		e.sendErrors++
	}
}

// sweepWait is how long recv, once its deadline has passed, still reads what the host has already
// received: a reply that arrived in time but waited in the socket while this process was not
// scheduled is in time. (Go refuses to read at all once a deadline has passed, so the sweep is a
// read with a short deadline of its own.)
const sweepWait = 500 * time.Microsecond

// recv returns the next data message and its sender, or a peer that exhausted its retries (err
// wraps errPeerFailed, from is the peer), or os.ErrDeadlineExceeded at deadline.
func (e *endpoint) recv(deadline time.Time) (from net.Addr, m message, err error) {
	swept := false
	for {
		if a, ok := e.retransmit(); !ok {
			return a, message{}, fmt.Errorf("%w: %d retransmissions unacknowledged", errPeerFailed, e.retries)
		}
		wake := deadline
		if swept {
			wake = time.Now().Add(sweepWait)
		}
		for _, p := range e.pending {
			if p.due.Before(wake) {
				wake = p.due
			}
		}
		if err := e.conn.SetReadDeadline(wake); err != nil {
			return nil, message{}, err
		}
		n, from, err := e.conn.ReadFrom(e.buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if !time.Now().Before(deadline) {
				if swept {
					return nil, message{}, err
				}
				swept = true
			}
			continue
		}
		if err != nil {
			return nil, message{}, fmt.Errorf("receive: %w", err)
		}
		m, perr := parse(e.buf[:n])
		if perr != nil || !e.fresh(from, m) {
			continue
		}
		return from, m, nil
	}
}

// fresh handles the transport's part of an arriving datagram: an acknowledgement settles its
// datagram, data is acknowledged (duplicates too: the first ack may be the one that was lost)
// and reported once.
func (e *endpoint) fresh(from net.Addr, m message) bool {
	if m.kind == kindAck {
		delete(e.pending, m.seq)
		return false
	}
	if !e.acks || m.seq == 0 {
		return true
	}
	e.write(message{kind: kindAck, seq: m.seq, txn: m.txn}.marshal(), from)
	w := e.seen[from.String()]
	if w == nil {
		w = &seqWindow{}
		e.seen[from.String()] = w
	}
	return w.add(m.seq)
}

// retransmit resends every datagram whose timeout passed; ok is false, with the peer, when one of
// them has no retries left (the datagram is dropped, so the next call goes on).
func (e *endpoint) retransmit() (peer net.Addr, ok bool) {
	now := time.Now()
	for seq, p := range e.pending {
		if p.due.After(now) {
			continue
		}
		if p.tries >= e.retries {
			delete(e.pending, seq)
			return p.to, false
		}
		p.tries++
		p.due = now.Add(e.timeout)
		e.retransmissions++
		e.write(p.b, p.to)
	}
	return nil, true
}

// forget drops every datagram still waiting for peer's acknowledgement (a peer declared dead).
func (e *endpoint) forget(peer net.Addr) {
	for seq, p := range e.pending {
		if p.to.String() == peer.String() {
			delete(e.pending, seq)
		}
	}
}

// seqWindow remembers the sequence numbers seen from one peer, bounded: numbers far below the
// highest are forgotten (a retransmission never lags that far behind).
type seqWindow struct {
	max  uint64
	seen map[uint64]struct{}
}

const seqWindowSize = 4096

func (w *seqWindow) add(seq uint64) bool {
	if w.seen == nil {
		w.seen = map[uint64]struct{}{}
	}
	if _, dup := w.seen[seq]; dup || (w.max > seqWindowSize && seq < w.max-seqWindowSize) {
		return false
	}
	w.seen[seq] = struct{}{}
	w.max = max(w.max, seq)
	if len(w.seen) > 2*seqWindowSize {
		for s := range w.seen {
			if s+seqWindowSize < w.max {
				delete(w.seen, s)
			}
		}
	}
	return true
}
