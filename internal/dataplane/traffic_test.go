package dataplane

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

// Traffic for namespace tests. Every loop is bounded by a deadline.

const udpFrameOverhead = 14 + 20 + 8 // Ethernet, IPv4, UDP: the frame's bytes beyond the payload

// realtimeToMonotonic converts a kernel receive timestamp (CLOCK_REALTIME) to the clock the program
// reads, with the offset between the two clocks measured now.
func realtimeToMonotonic(at time.Time) uint64 {
	var mono, real unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono)
	_ = unix.ClockGettime(unix.CLOCK_REALTIME, &real)
	return uint64(at.UnixNano() - (real.Nano() - mono.Nano()))
}

// monotonicToRealtime converts a time on the program's clock to the kernel stamps' wall clock.
func monotonicToRealtime(ns uint64) int64 {
	var mono, real unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono)
	_ = unix.ClockGettime(unix.CLOCK_REALTIME, &real)
	return int64(ns) + (real.Nano() - mono.Nano())
}

func monotonicNs() uint64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) // the clock bpf_ktime_get_ns reads
	return uint64(ts.Nano())
}

// listenUDP opens a UDP socket in ns bound to addr:port.
func listenUDP(t *testing.T, ns, addr string, port int) *net.UDPConn {
	t.Helper()
	var c *net.UDPConn
	var err error
	testutil.InNetns(t, ns, func() { c, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.ParseIP(addr), Port: port}) })
	if err != nil {
		t.Fatalf("listen udp in %s: %v", ns, err)
	}
	_ = c.SetReadBuffer(8 << 20)
	// Kernel receive timestamps: arrival times must not depend on when the reader gets the CPU.
	if raw, err := c.SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) })
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rxTime is the kernel's receive timestamp in oob, or now if there is none.
func rxTime(oob []byte) time.Time {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err == nil {
		for _, m := range msgs {
			if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPNS && len(m.Data) >= 16 {
				sec := int64(binary.NativeEndian.Uint64(m.Data[0:]))
				nsec := int64(binary.NativeEndian.Uint64(m.Data[8:]))
				return time.Unix(sec, nsec)
			}
		}
	}
	return time.Now()
}

// dialUDP opens a UDP socket in ns to addr:port with SO_PRIORITY prio.
func dialUDP(t *testing.T, ns, addr string, port, prio int) *net.UDPConn {
	t.Helper()
	var c *net.UDPConn
	var err error
	testutil.InNetns(t, ns, func() { c, err = net.DialUDP("udp4", nil, &net.UDPAddr{IP: net.ParseIP(addr), Port: port}) })
	if err != nil {
		t.Fatalf("dial udp in %s: %v", ns, err)
	}
	setPriority(t, c, prio)
	t.Cleanup(func() { c.Close() })
	return c
}

func setPriority(t *testing.T, c syscall.Conn, prio int) {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PRIORITY, prio)
	}); err != nil || serr != nil {
		t.Fatalf("set SO_PRIORITY %d: %v %v", prio, err, serr)
	}
}

// datagram is what the receiver saw: the sender's id and epoch index from the payload, the bytes
// QJump charged for it, and when it arrived.
type datagram struct {
	sender uint8
	epoch  uint64
	frame  int
	at     time.Time
}

// receive collects datagrams on c until stop is closed (then drains for 50 ms).
func receive(c *net.UDPConn, stop <-chan struct{}) <-chan []datagram {
	out := make(chan []datagram, 1)
	go func() {
		var got []datagram
		buf, oob := make([]byte, 65536), make([]byte, 128)
		drainUntil := time.Time{}
		for {
			select {
			case <-stop:
				if drainUntil.IsZero() {
					drainUntil = time.Now().Add(50 * time.Millisecond)
				}
			default:
			}
			if !drainUntil.IsZero() && time.Now().After(drainUntil) {
				out <- got
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			n, oobn, _, _, err := c.ReadMsgUDP(buf, oob)
			if err != nil {
				continue
			}
			d := datagram{frame: int(model.WireBytes(model.Bytes(n + udpFrameOverhead))), at: rxTime(oob[:oobn])}
			if n >= 9 {
				d.sender, d.epoch = buf[0], binary.LittleEndian.Uint64(buf[1:9])
			}
			got = append(got, d)
		}
	}()
	return out
}

// chargedPerEpoch sums, per epoch of the program's clock, the wire bytes of the datagrams whose
// charge epoch is certain. The sender read its clock in epoch a before the write that the program
// charged, and the receiver's kernel stamped the frame in epoch b after the charge; a datagram with
// a == b was charged in that epoch. One with a < b could have been charged in either (the sender
// preempted before its write, the frame held in the egress tree, or the CPU stopped after the
// charge) and is counted in unsure, not in any epoch. So an epoch over its budget here is a breach
// whatever the host did, and the test needs no excuse for a late stamp.
func chargedPerEpoch(arrivals []datagram, epoch time.Duration) (charged map[uint64]int, unsure int) {
	charged = map[uint64]int{}
	for _, d := range arrivals {
		if at := realtimeToMonotonic(d.at) / uint64(epoch); at == d.epoch {
			charged[at] += d.frame
		} else {
			unsure++
		}
	}
	return charged, unsure
}

// checkCharged fails t for every epoch whose certain charges exceed budget, and when more than a
// tenth of the datagrams are unsure, too many to judge the rest by.
func checkCharged(t *testing.T, arrivals []datagram, budget int) map[uint64]int {
	t.Helper()
	charged, unsure := chargedPerEpoch(arrivals, testEpoch)
	for e, b := range charged {
		if b > budget {
			t.Errorf("epoch %d: the program let %d bytes through, more than the budget %d", e, b, budget)
		}
	}
	t.Logf("%d datagrams, %d of them stamped by the sender in one epoch and by the receiver in a later one (charged in either)",
		len(arrivals), unsure)
	if unsure > len(arrivals)/10 {
		t.Errorf("%d of %d datagrams crossed an epoch between send and arrival: too many to judge the budget by the rest",
			unsure, len(arrivals))
	}
	return charged
}

// sendOptions shape a sender's load.
type sendOptions struct {
	id      uint8
	payload int           // UDP payload bytes
	until   time.Time     // stop then
	epoch   time.Duration // with window: only send inside [lo, hi) of each epoch
	lo, hi  time.Duration
	cpu     int // pin to this CPU when >= 0
}

// send offers datagrams as fast as it can until o.until, each stamped with the epoch index of its
// send time, and returns how many it offered.
func send(c *net.UDPConn, o sendOptions) int {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if o.cpu >= 0 {
		var set unix.CPUSet
		set.Set(o.cpu)
		_ = unix.SchedSetaffinity(0, &set)
	}
	payload := make([]byte, o.payload)
	payload[0] = o.id
	sent := 0
	for time.Now().Before(o.until) {
		now := monotonicNs()
		if o.epoch > 0 {
			phase := time.Duration(now % uint64(o.epoch))
			if phase < o.lo || phase >= o.hi {
				time.Sleep(100 * time.Microsecond)
				continue
			}
			binary.LittleEndian.PutUint64(payload[1:], now/uint64(o.epoch))
		}
		if _, err := c.Write(payload); err != nil && !errors.Is(err, unix.ENOBUFS) && !errors.Is(err, os.ErrDeadlineExceeded) {
			if errors.Is(err, unix.ECONNREFUSED) {
				continue
			}
			return sent
		}
		sent++
	}
	return sent
}

// sendAll runs senders concurrently and waits for them.
func sendAll(conns []*net.UDPConn, opts []sendOptions) {
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func(i int) { defer wg.Done(); send(conns[i], opts[i]) }(i)
	}
	wg.Wait()
}
