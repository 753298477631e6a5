package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// ServerOptions configure Serve.
type ServerOptions struct {
	Listen string        // address:port to listen on
	Limit  int           // stop recording after this many arrivals (memory bound)
	For    time.Duration // serve this long at most (0: until ctx ends)
	TOS    int           // IP TOS byte of replies (0: leave as the kernel sets it)
	Ready  func()        // called once the socket is bound and stamping: probes sent now are seen
	// Arrived is called with each arrival Serve records, from Serve's goroutine (may be nil).
	Arrived func(Arrival)
	// ReceiveBuffer is the socket's receive buffer in bytes (0: DefaultReceiveBuffer).
	ReceiveBuffer int
}

// DefaultReceiveBuffer holds about 1,800 full-size probes (a datagram costs about 2.3 kB of
// buffer): a fan-in burst waiting for a server descheduled on a busy machine fits.
const DefaultReceiveBuffer = 4 << 20

// ErrDropped is a server whose socket dropped datagrams that had reached it: probes the network
// delivered but the measurement lost. The arrivals are incomplete, so they must not be read as
// the network's losses.
var ErrDropped = errors.New("probes dropped at the server's socket")

// rxStampWait bounds how long Serve waits for the kernel to start stamping received packets.
const rxStampWait = 5 * time.Second

// awaitRxStamps returns once a packet the server sends itself arrives with a kernel receive stamp.
// Receive stamping is one kernel-wide switch that the first timestamping socket turns on and the
// last one off, and the kernel flips it from deferred work: on a busy machine packets go
// unstamped for a good part of a second after the socket asked. Waiting here makes the server's
// readiness mean that every probe from now on is stamped. The packet is a reply, which Serve
// ignores, so it never counts as an arrival. One packet per try, whatever comes back early: the
// wait costs the busy machine next to nothing.
func awaitRxStamps(sock *stampSocket, conn *net.UDPConn, within time.Duration) error {
	self := *conn.LocalAddr().(*net.UDPAddr)
	if self.IP == nil || self.IP.IsUnspecified() {
		self.IP = net.IPv4(127, 0, 0, 1)
	}
	out, in := make([]byte, headerLen), make([]byte, 65536)
	header{kind: kindReply}.marshal(out)
	for end := time.Now().Add(within); time.Now().Before(end); {
		if _, err := conn.WriteToUDP(out, &self); err != nil {
			return fmt.Errorf("send to self: %w", err)
		}
		try := time.Now().Add(20 * time.Millisecond)
		for time.Now().Before(try) {
			_, _, stamp, err := sock.read(in, try)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				break
			}
			if err != nil {
				return fmt.Errorf("receive from self: %w", err)
			}
			if stamp != 0 {
				return nil
			}
		}
	}
	return fmt.Errorf("kernel receive timestamps (SO_TIMESTAMPING) did not start within %s", model.DurationText(within))
}

// Serve answers requests with the request's kernel receive stamp and records every probe packet
// that arrives, until ctx ends or opts.For passes. It returns the arrivals.
func Serve(ctx context.Context, opts ServerOptions) ([]Arrival, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	addr, err := net.ResolveUDPAddr("udp4", opts.Listen)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", opts.Listen, err)
	}
	conn, err := net.ListenUDP("udp4", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", opts.Listen, err)
	}
	defer conn.Close()
	sock, err := newStampSocket(conn, opts.TOS, rxStampFlags)
	if err != nil {
		return nil, err
	}
	rcvbuf := opts.ReceiveBuffer
	if rcvbuf == 0 {
		rcvbuf = DefaultReceiveBuffer
	}
	if err := sock.setReceiveBuffer(rcvbuf); err != nil {
		return nil, err
	}
	if err := awaitRxStamps(sock, conn, rxStampWait); err != nil {
		return nil, err
	}
	if opts.Ready != nil {
		opts.Ready()
	}
	var end time.Time
	if opts.For > 0 {
		end = time.Now().Add(opts.For)
	}
	var arrivals []Arrival
	buf := make([]byte, 65536)
	for ctx.Err() == nil && (end.IsZero() || time.Now().Before(end)) {
		n, from, stamp, err := sock.read(buf, time.Now().Add(100*time.Millisecond))
		if errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		if err != nil {
			return arrivals, fmt.Errorf("receive probe: %w", err)
		}
		h, err := parseHeader(buf[:n])
		if err != nil || h.kind == kindReply {
			continue
		}
		if opts.Limit == 0 || len(arrivals) < opts.Limit {
			a := Arrival{Sender: h.sender, Seq: h.seq, SendNS: h.sendNS, RecvNS: stamp}
			arrivals = append(arrivals, a)
			if opts.Arrived != nil {
				opts.Arrived(a)
			}
		}
		if h.kind == kindRequest {
			h.kind, h.serverNS = kindReply, stamp
			h.marshal(buf[:n])
			_, _ = conn.WriteToUDP(buf[:n], from)
		}
	}
	if drops, err := sock.drops(); err != nil || drops > 0 {
		if err != nil {
			return arrivals, err
		}
		return arrivals, fmt.Errorf("%w: the kernel dropped %d datagrams (receive buffer %d bytes full)", ErrDropped, drops, rcvbuf)
	}
	return arrivals, nil
}
