package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// Mode is how the client probes.
type Mode string

const (
	// RequestResponse sends one request, waits for its reply (or the timeout), then paces the next.
	RequestResponse Mode = "rr"
	// OneWay sends at a fixed interval without waiting; the server records arrivals.
	OneWay Mode = "oneway"
)

// ClientOptions configure Probe.
type ClientOptions struct {
	To       string        // server address:port
	Mode     Mode          // rr or oneway
	Count    int           // packets to send
	Interval time.Duration // between sends (a request/response send waits for the reply first)
	Size     int           // UDP payload bytes, at least MinSize
	Timeout  time.Duration // a reply later than this is lost
	TOS      int           // IP TOS byte (0: unset; QJump marks it from the level)
	Sender   uint16        // this host's id in the packets
	Progress func(done int)
}

// Probe sends opts.Count probes and returns a sample for each, in order.
func Probe(ctx context.Context, opts ClientOptions) ([]Sample, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	raddr, err := net.ResolveUDPAddr("udp4", opts.To)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", opts.To, err)
	}
	conn, err := net.DialUDP("udp4", nil, raddr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", opts.To, err)
	}
	defer conn.Close()
	sock, err := newStampSocket(conn, opts.TOS, txRxStampFlags)
	if err != nil {
		return nil, err
	}
	samples := make([]Sample, 0, opts.Count)
	out := make([]byte, opts.Size)
	in := make([]byte, 65536)
	tx := map[uint32]int64{}
	sent := 0 // packets the kernel took, each of which gets a transmit stamp
	var last time.Time
	start := time.Now()
	for i := 0; i < opts.Count && ctx.Err() == nil; i++ {
		if wait := time.Until(nextSend(opts, &start, last, i)); wait > 0 {
			time.Sleep(wait)
		}
		last = time.Now()
		s, left, err := sendOne(sock, opts, uint64(i), out, in)
		if err != nil {
			return samples, err
		}
		if left {
			sent++
		}
		samples = append(samples, s)
		// The error queue counts against the receive buffer: drain it as we go or stamps are lost.
		sock.collectTxStamps(tx)
		if opts.Progress != nil && (i+1)%100 == 0 {
			opts.Progress(i + 1)
		}
	}
	fillTxStamps(sock, tx, sent, samples)
	return samples, nil
}

// nextSend paces one-way probes on a fixed schedule (a rate, whatever the sleep overshoot), and
// request/response probes from the previous send: a late reply delays the next probe instead of
// causing a burst of catch-up probes that would queue behind each other. A one-way sender that
// fell more than one interval behind its schedule (descheduled on a busy machine) does not catch
// up either: it sends now and keeps the interval from there, so that it never offers more than
// one probe per interval. A catch-up burst is more than the f packets per epoch the fan-in's
// senders stand for, and it queued at the switch beyond the model's bound.
func nextSend(opts ClientOptions, start *time.Time, last time.Time, i int) time.Time {
	if opts.Mode != OneWay {
		return last.Add(opts.Interval)
	}
	at := start.Add(time.Duration(i) * opts.Interval)
	if now := time.Now(); i > 0 && now.Sub(at) > opts.Interval {
		at = now
		*start = at.Add(-time.Duration(i) * opts.Interval)
	}
	return at
}

// sendOne sends probe seq and, for request/response, waits for its reply. It reports whether the
// kernel took the packet.
func sendOne(sock *stampSocket, opts ClientOptions, seq uint64, out, in []byte) (Sample, bool, error) {
	kind := kindRequest
	if opts.Mode == OneWay {
		kind = kindOneWay
	}
	s := Sample{Seq: seq, SendNS: now()}
	header{kind: kind, sender: opts.Sender, seq: seq, sendNS: s.SendNS}.marshal(out)
	if _, err := sock.conn.Write(out); err != nil {
		// A full host queue refuses the datagram (ENOBUFS): that is a lost probe, not a failure.
		s.Lost = true
		return s, false, nil
	}
	if opts.Mode == OneWay {
		return s, true, nil
	}
	deadline := time.Now().Add(opts.Timeout)
	for {
		n, _, stamp, err := sock.read(in, deadline)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			s.Lost = true
			return s, true, nil
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			// ICMP port unreachable: no server (yet, or any more). The probe got no answer.
			s.Lost = true
			return s, true, nil
		}
		if err != nil {
			return s, true, fmt.Errorf("receive reply: %w", err)
		}
		h, err := parseHeader(in[:n])
		if err != nil || h.kind != kindReply || h.seq != seq {
			continue // a late reply to an earlier, already lost probe
		}
		s.ServerNS, s.RecvNS = h.serverNS, stamp
		return s, true, nil
	}
}

// txStampWait bounds the wait for the last transmit stamps: a packet is stamped when the driver
// takes it, after the host's qdisc, which may hold the last probes for a while.
const txStampWait = time.Second

// fillTxStamps matches transmit stamps to samples: OPT_ID counts sends on the socket from 0, and
// every sample is one send. It first waits until the sent packets all have their stamps.
func fillTxStamps(sock *stampSocket, tx map[uint32]int64, sent int, samples []Sample) {
	sock.awaitTxStamps(tx, sent, txStampWait)
	for id, stamp := range tx {
		if int(id) < len(samples) {
			samples[id].TxNS = stamp
		}
	}
}
