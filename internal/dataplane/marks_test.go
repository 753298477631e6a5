package dataplane

import (
	"encoding/binary"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/testutil"
)

// wireFrame is a UDP frame as the peer's packet socket saw it.
type wireFrame struct {
	tos       byte
	vlanValid bool
	pcp, vid  uint16
}

// capture opens a packet socket on eth0 of ns that reports 802.1Q tags (PACKET_AUXDATA).
func capture(t *testing.T, ns string) int {
	t.Helper()
	var fd int
	var err error
	testutil.InNetns(t, ns, func() {
		fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, int(htons(unix.ETH_P_ALL)))
		if err != nil {
			return
		}
		var ifi *net.Interface
		if ifi, err = net.InterfaceByName("eth0"); err != nil {
			return
		}
		err = unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index})
	})
	if err != nil {
		t.Fatalf("packet socket in %s: %v", ns, err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	_ = unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_AUXDATA, 1)
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 100000})
	return fd
}

// framesTo reads the packet socket for d and returns the UDP frames to port.
func framesTo(fd int, port uint16, d time.Duration) []wireFrame {
	var out []wireFrame
	buf, oob := make([]byte, 2048), make([]byte, 256)
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, 0)
		if err != nil || n < 14 {
			continue
		}
		f, l3 := wireFrame{}, 14
		if binary.BigEndian.Uint16(buf[12:]) == unix.ETH_P_8021Q { // tag left in the payload
			tci := binary.BigEndian.Uint16(buf[14:])
			f.vlanValid, f.pcp, f.vid, l3 = true, tci>>13, tci&0xfff, 18
		}
		if n < l3+28 || buf[l3+9] != unix.IPPROTO_UDP || binary.BigEndian.Uint16(buf[l3+22:]) != port {
			continue
		}
		f.tos = buf[l3+1]
		if tci, ok := offloadedTag(oob[:oobn]); ok {
			f.vlanValid, f.pcp, f.vid = true, tci>>13, tci&0xfff
		}
		out = append(out, f)
	}
	return out
}

// offloadedTag is the 802.1Q tag the kernel took off a received frame (PACKET_AUXDATA), if any.
func offloadedTag(oob []byte) (tci uint16, ok bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, false
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_PACKET && m.Header.Type == unix.PACKET_AUXDATA && len(m.Data) >= int(unsafe.Sizeof(unix.TpacketAuxdata{})) {
			if aux := (*unix.TpacketAuxdata)(unsafe.Pointer(&m.Data[0])); aux.Status&unix.TP_STATUS_VLAN_VALID != 0 {
				return aux.Vlan_tci, true
			}
		}
	}
	return 0, false
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// TestMarksOnTheWire: the peer sees DSCP CS5 and an 802.1Q priority tag with PCP 5 on level 5
// traffic, and its IP stack accepts the priority-tagged (VLAN id 0) frames without an 8021q
// device. A tag with VLAN id 5 is seen on the wire too, but the peer's stack drops those frames.
func TestMarksOnTheWire(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs("--mark", "both")...)
	pfd := capture(t, h.b)
	rx := listenUDP(t, h.b, h.addrB, 5004)
	tx := dialUDP(t, h.a, h.addrB, 5004, 5)

	check := func(vid uint16, wantDelivered bool) {
		t.Helper()
		go func() {
			for i := 0; i < 20; i++ {
				_, _ = tx.Write(make([]byte, 100))
				time.Sleep(5 * time.Millisecond)
			}
		}()
		frames := framesTo(pfd, 5004, 300*time.Millisecond)
		if len(frames) == 0 {
			t.Fatalf("vlan id %d: the packet socket saw no frames", vid)
		}
		for _, f := range frames {
			if f.tos>>2 != 5<<3 || !f.vlanValid || f.pcp != 5 || f.vid != vid {
				t.Fatalf("vlan id %d: frame on the wire %+v, want DSCP CS5 (TOS 0xa0), tag PCP 5 VID %d", vid, f, vid)
			}
		}
		_ = rx.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n := 0
		for buf := make([]byte, 2048); ; n++ {
			if _, err := rx.Read(buf); err != nil {
				break
			}
		}
		t.Logf("vlan id %d: %d frames on the wire, %d delivered to the peer's socket", vid, len(frames), n)
		if (n > 0) != wantDelivered {
			t.Errorf("vlan id %d: %d datagrams delivered, want delivered=%v", vid, n, wantDelivered)
		}
	}
	check(0, true)

	cfg := filepath.Join(t.TempDir(), "qjump.yaml")
	yaml := "hosts: 100\nrate: 240M\npacket: 1500B\nfactors: {7: 20, 5: 20, 0: unlimited}\nmark: both\nvlan_id: 5\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	h.mustQjump(t, h.a, "reload", "--dev", "eth0", "--config", cfg)
	check(5, false)
}

func netInterfaceByName(name string) (int, error) {
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return 0, err
	}
	return ifi.Index, nil
}

// TestPCPLeavesNonIPUntagged: review bug: PCP marking tagged every frame, so with a VLAN id set
// the host's ARP requests went out in that VLAN. Only IP traffic carries the level's tag now: an
// ARP request under --mark pcp --vlan-id 5 reaches the peer untagged.
func TestPCPLeavesNonIPUntagged(t *testing.T) {
	h := newHosts(t)
	h.mustQjump(t, h.a, upArgs("--mark", "pcp", "--vlan-id", "5")...)
	pfd := capture(t, h.b)
	if _, errOut, code := testutil.Run(t, nil, "ip", "-n", h.a, "neigh", "flush", "dev", "eth0"); code != 0 {
		t.Fatalf("ip neigh flush: %s", errOut)
	}
	tx := dialUDP(t, h.a, h.addrB, 5013, 7) // resolving the peer sends an ARP request
	_, _ = tx.Write(make([]byte, 10))
	var arps int
	buf, oob := make([]byte, 2048), make([]byte, 256)
	for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); {
		n, oobn, _, _, err := unix.Recvmsg(pfd, buf, oob, 0)
		if err != nil || n < 14 {
			continue
		}
		switch binary.BigEndian.Uint16(buf[12:]) {
		case unix.ETH_P_8021Q:
			if n >= 18 && binary.BigEndian.Uint16(buf[16:]) == unix.ETH_P_ARP {
				t.Fatalf("ARP frame on the wire with an in-band 802.1Q tag %#x", binary.BigEndian.Uint16(buf[14:]))
			}
		case unix.ETH_P_ARP:
			arps++
			if tci, ok := offloadedTag(oob[:oobn]); ok {
				t.Fatalf("ARP frame on the wire with an 802.1Q tag %#x", tci)
			}
		}
	}
	if arps == 0 {
		t.Fatal("the packet socket saw no ARP frame")
	}
}
