package twopc

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// Transport is how the coordinator and the servers exchange messages (see the package doc).
type Transport string

const (
	TCP   Transport = "tcp"
	UDP   Transport = "udp"
	QJump Transport = "qjump"
)

const transportsAllowed = "tcp, udp or qjump"

func (t Transport) valid() bool { return t == TCP || t == UDP || t == QJump }

// CoordinatorOptions configure Coordinate.
type CoordinatorOptions struct {
	Transport    Transport
	Servers      []string      // server address:port, one per server; a server's index is its place here
	Broadcast    string        // qjump: one datagram to this address:port reaches every server ("": one per server)
	Count        int           // transactions to run at most
	For          time.Duration // run this long at most
	Size         int           // PREPARE payload bytes
	Timeout      time.Duration // tcp: reply deadline; udp: retransmission timeout
	Retries      int           // udp: retransmissions before a peer is dead
	Epoch        time.Duration // qjump: the network epoch (qjump calc prints it)
	DetectEpochs int           // qjump: epochs without a reply before a server is dead
	Connect      time.Duration // tcp: keep trying to connect to the servers this long

	// wrap, in tests, stands between the coordinator and its UDP socket (a lossy network).
	wrap func(net.PacketConn) net.PacketConn
}

// ServerOptions configure Serve.
type ServerOptions struct {
	Transport   Transport
	Listen      string        // address:port (udp, qjump: bind the wildcard address to hear broadcasts)
	For         time.Duration // serve this long at most
	VoteNoEvery int           // vote no on every Nth transaction id (0: always yes)
	Timeout     time.Duration // udp: retransmission timeout of replies
	Retries     int           // udp: retransmissions of a reply
	Ready       func()        // called once the server listens

	wrap func(net.PacketConn) net.PacketConn
}

// Validate checks the coordinator's options; errors name the field (*model.FieldError).
func (o CoordinatorOptions) Validate() error {
	switch {
	case !o.Transport.valid():
		return field("transport", string(o.Transport), transportsAllowed)
	case len(o.Servers) == 0:
		return field("servers", "", "one or more server address:port, comma-separated")
	case o.Count < 1:
		return field("count", strconv.Itoa(o.Count), "at least 1")
	case o.For <= 0:
		return field("for", o.For.String(), "more than 0")
	case o.Size < 0 || o.Size > MaxSize:
		return field("size", strconv.Itoa(o.Size), "0 to "+strconv.Itoa(MaxSize)+" bytes")
	case o.Broadcast != "" && o.Transport != QJump:
		return field("broadcast", o.Broadcast, "only with transport qjump (the others acknowledge each server)")
	}
	for _, s := range o.Servers {
		if _, _, err := net.SplitHostPort(s); err != nil || s == "" {
			return field("servers", strings.Join(o.Servers, ","), "address:port, comma-separated")
		}
	}
	if o.Broadcast != "" {
		if _, _, err := net.SplitHostPort(o.Broadcast); err != nil {
			return field("broadcast", o.Broadcast, "a broadcast address:port")
		}
	}
	return o.checkTransport()
}

func (o CoordinatorOptions) checkTransport() error {
	switch o.Transport {
	case TCP:
		if o.Connect <= 0 {
			return field("connect", o.Connect.String(), "more than 0")
		}
		return positive("timeout", o.Timeout)
	case UDP:
		if o.Retries < 0 {
			return field("retries", strconv.Itoa(o.Retries), "0 or more")
		}
		return positive("timeout", o.Timeout)
	default:
		if o.DetectEpochs < 1 {
			return field("detect-epochs", strconv.Itoa(o.DetectEpochs), "at least 1")
		}
		if o.Epoch <= 0 {
			return field("epoch", o.Epoch.String(), "more than 0: the network epoch that qjump calc prints")
		}
		return nil
	}
}

// Validate checks the server's options.
func (o ServerOptions) Validate() error {
	switch {
	case !o.Transport.valid():
		return field("transport", string(o.Transport), transportsAllowed)
	case o.Listen == "":
		return field("listen", o.Listen, "an address:port")
	case o.For <= 0:
		return field("for", o.For.String(), "more than 0")
	case o.VoteNoEvery < 0:
		return field("vote-no-every", strconv.Itoa(o.VoteNoEvery), "0 (always vote yes) or more")
	case o.Transport == UDP && o.Retries < 0:
		return field("retries", strconv.Itoa(o.Retries), "0 or more")
	case o.Transport == UDP:
		return positive("timeout", o.Timeout)
	}
	return nil
}

// replyWait is how long the coordinator waits for a reply before it declares the server dead.
func (o CoordinatorOptions) replyWait() time.Duration {
	switch o.Transport {
	case TCP:
		return o.Timeout
	case UDP:
		// The message may need every retransmission, and so may the reply; the transport
		// itself reports a peer that never acknowledges after (Retries+1)·Timeout.
		return 2 * time.Duration(o.Retries+1) * o.Timeout
	default:
		return time.Duration(o.DetectEpochs) * o.Epoch
	}
}

func field(name, value, allowed string) error {
	return &model.FieldError{Field: name, Value: value, Allowed: allowed}
}

func positive(name string, d time.Duration) error {
	if d <= 0 {
		return field(name, d.String(), "more than 0")
	}
	return nil
}
