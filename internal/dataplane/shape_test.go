package dataplane

import (
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/testutil"
)

// shapeModel: E = 2·10·1500·8/1G = 240 µs, level 5 at factor 2 is 3000 B per epoch = 100 Mb/s, under
// a link (HTB root class) of R = 1 Gb/s.
var shapeModel = []string{"--hosts", "10", "--rate", "1G", "--packet", "1500B", "--factors", "7=1,5=2,0=unlimited"}

const shapeLevelRate = 3000 * 8 / 240e-6 // bit/s

// tcpGoodput runs one TCP flow from a to b at level 5 for d and returns the receiver's goodput in
// bit/s over the flow after its first 300 ms.
func tcpGoodput(t *testing.T, h *hosts, port int, d time.Duration) float64 {
	t.Helper()
	var ln net.Listener
	var err error
	testutil.InNetns(t, h.b, func() { ln, err = net.Listen("tcp4", net.JoinHostPort(h.addrB, itoa(port))) })
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	result := make(chan float64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			result <- 0
			return
		}
		defer c.Close()
		// Count what arrives from 300 ms in until the sender stops, whatever is still in flight.
		buf := make([]byte, 1<<16)
		from, to := time.Now().Add(300*time.Millisecond), time.Now().Add(d)
		_ = c.SetReadDeadline(to)
		n := 0
		for {
			k, err := c.Read(buf)
			if time.Now().After(from) {
				n += k
			}
			if err != nil {
				break
			}
		}
		result <- float64(n) * 8 / to.Sub(from).Seconds()
	}()
	var c net.Conn
	testutil.InNetns(t, h.a, func() {
		dialer := net.Dialer{Timeout: 2 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
			return rc.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PRIORITY, 5) })
		}}
		c, err = dialer.Dial("tcp4", net.JoinHostPort(h.addrB, itoa(port)))
	})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<16)
	for until := time.Now().Add(d); time.Now().Before(until); {
		_ = c.SetWriteDeadline(until)
		if _, err := c.Write(buf); err != nil {
			break
		}
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // do not leave a stalled flow trickling after the test
	}
	c.Close()
	return <-result
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestShapeGivesTCPItsRate: in shape mode a TCP flow on a limited level gets at least 80% of the
// level's rate, and no more than it, and no packet is dropped for budget. Police mode holds the
// level by dropping instead: TCP hands TC egress GSO super-packets far larger than a 3 kB budget
// (docs/dataplane.md), so the flow gets less than the level's rate and level 5 counts drops.
func TestShapeGivesTCPItsRate(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, append([]string{"up", "--dev", "eth0", "--mode", "shape"}, shapeModel...)...)
	shaped := tcpGoodput(t, h, 5201, 1500*time.Millisecond)
	l5 := h.status(t, h.a).Devices[0].Level(t, 5)
	t.Logf("shape: TCP goodput %.1f Mb/s of the level's %.0f Mb/s (%.0f%%); level 5 sent %d, dropped %d, shaped %d",
		shaped/1e6, shapeLevelRate/1e6, 100*shaped/shapeLevelRate, l5.SentPackets, l5.DroppedPackets, l5.ShapedPackets)
	if shaped < 0.8*shapeLevelRate || l5.DroppedPackets != 0 {
		t.Errorf("shape: goodput %.1f Mb/s (want ≥ %.0f), %d dropped (want 0)", shaped/1e6, 0.8*shapeLevelRate/1e6, l5.DroppedPackets)
	}
	// And no more than the level's rate: without shaping, the flow would run at the link's 1 Gb/s.
	if shaped > 1.1*shapeLevelRate {
		t.Errorf("shape: goodput %.1f Mb/s, more than the level's %.0f Mb/s: the level is not held", shaped/1e6, shapeLevelRate/1e6)
	}
	if testing.Short() {
		return
	}
	h.mustQjump(t, h.a, "down", "--dev", "eth0")
	h.mustQjump(t, h.a, append([]string{"up", "--dev", "eth0", "--mode", "police"}, shapeModel...)...)
	police := tcpGoodput(t, h, 5202, time.Second)
	l5 = h.status(t, h.a).Devices[0].Level(t, 5)
	t.Logf("police: TCP goodput %.2f Mb/s (%.1f%%); level 5 sent %d, dropped %d over budget and %d larger than it (GSO)",
		police/1e6, 100*police/shapeLevelRate, l5.SentPackets, l5.DroppedPackets, l5.OversizePackets)
	if police > shapeLevelRate || l5.DroppedPackets+l5.OversizePackets == 0 {
		t.Errorf("police: goodput %.2f Mb/s (want at most the level's %.0f Mb/s), %d dropped (want budget drops)",
			police/1e6, shapeLevelRate/1e6, l5.DroppedPackets+l5.OversizePackets)
	}
}
