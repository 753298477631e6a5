package dataplane

import (
	"slices"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/testutil"
)

// How long a packet waits in the host's egress, measured by the kernel rather than by the test:
// SO_TIMESTAMPING stamps a datagram when it enters the qdisc (SCHED) and when the driver takes it
// (SND, veth's skb_tx_timestamp), so SND − SCHED is its sojourn in QJump's tree, free of when the
// test's goroutines get a CPU. A round trip measured by the test itself carried tens of µs of
// scheduling on a busy 2-core machine, as much as the margin it was meant to check.

const sojournStampFlags = unix.SOF_TIMESTAMPING_TX_SCHED | unix.SOF_TIMESTAMPING_TX_SOFTWARE |
	unix.SOF_TIMESTAMPING_SOFTWARE | unix.SOF_TIMESTAMPING_OPT_ID | unix.SOF_TIMESTAMPING_OPT_TSONLY

// sojournProbe sends small datagrams on a connected UDP socket and reads their stamps back.
type sojournProbe struct {
	fd    int
	sched map[uint32]int64 // by OPT_ID, the send's index
	snd   map[uint32]int64
	sent  uint32
}

func newSojournProbe(t *testing.T, c syscall.Conn) *sojournProbe {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	p := &sojournProbe{sched: map[uint32]int64{}, snd: map[uint32]int64{}}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		p.fd = int(fd)
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPING, sojournStampFlags)
	}); err != nil || serr != nil {
		t.Fatalf("enable SO_TIMESTAMPING: %v %v", err, serr)
	}
	return p
}

// send sends one 64-byte datagram and collects whatever stamps are ready.
func (p *sojournProbe) send() {
	if _, err := unix.Write(p.fd, make([]byte, 64)); err == nil {
		p.sent++
	}
	p.collect()
}

// collect drains the socket's error queue into the stamp maps.
func (p *sojournProbe) collect() {
	buf, oob := make([]byte, 64), make([]byte, 512)
	for {
		_, oobn, _, _, err := unix.Recvmsg(p.fd, buf, oob, unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
		if err != nil {
			return
		}
		var stamp int64
		var ee *unix.SockExtendedErr
		msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
		for _, m := range msgs {
			switch {
			case m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPING &&
				len(m.Data) >= int(unsafe.Sizeof(unix.Timespec{})):
				stamp = (*unix.Timespec)(unsafe.Pointer(&m.Data[0])).Nano()
			case m.Header.Level == unix.SOL_IP && m.Header.Type == unix.IP_RECVERR &&
				len(m.Data) >= int(unsafe.Sizeof(unix.SockExtendedErr{})):
				ee = (*unix.SockExtendedErr)(unsafe.Pointer(&m.Data[0]))
			}
		}
		if ee == nil || ee.Origin != unix.SO_EE_ORIGIN_TIMESTAMPING || stamp == 0 {
			continue
		}
		switch ee.Info {
		case unix.SCM_TSTAMP_SCHED:
			p.sched[ee.Data] = stamp
		case unix.SCM_TSTAMP_SND:
			p.snd[ee.Data] = stamp
		}
	}
}

// sojourns waits up to within for the outstanding stamps and returns the sojourn of every datagram
// stamped both times, sorted, and how many were sent.
func (p *sojournProbe) sojourns(within time.Duration) ([]time.Duration, int) {
	for end := time.Now().Add(within); len(p.snd) < int(p.sent) && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
		p.collect()
	}
	var out []time.Duration
	for id, at := range p.sched {
		if left, ok := p.snd[id]; ok {
			out = append(out, time.Duration(left-at))
		}
	}
	slices.Sort(out)
	return out, int(p.sent)
}

// egressBacklog is the bytes queued in eth0's root qdisc in ns.
func egressBacklog(t *testing.T, ns string) uint32 {
	t.Helper()
	var backlog uint32
	testutil.InNetns(t, ns, func() {
		l, err := netlink.LinkByName("eth0")
		if err != nil {
			return
		}
		qs, err := netlink.QdiscList(l)
		if err != nil {
			return
		}
		for _, q := range qs {
			if q.Attrs().Parent == netlink.HANDLE_ROOT && q.Attrs().Statistics != nil && q.Attrs().Statistics.Queue != nil {
				backlog = q.Attrs().Statistics.Queue.Backlog
			}
		}
	})
	return backlog
}

// quantile is the q-quantile of sorted d, or an hour for no sample at all (which fails any limit).
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return time.Hour
	}
	return d[min(int(q*float64(len(d))), len(d)-1)]
}
