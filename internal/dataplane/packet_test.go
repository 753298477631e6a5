package dataplane

import (
	"encoding/binary"
	"net/netip"
)

// Test packets: Ethernet frames with valid IPv4/IPv6 and UDP checksums. The frames a case expects
// out are built the same way, so comparing bytes also checks the checksums the program patched.

var (
	macA = []byte{0x02, 0, 0, 0, 0, 0xa}
	macB = []byte{0x02, 0, 0, 0, 0, 0xb}
	ip4A = netip.MustParseAddr("198.18.0.1")
	ip4B = netip.MustParseAddr("198.18.0.2")
	ip6A = netip.MustParseAddr("2001:db8::a")
	ip6B = netip.MustParseAddr("2001:db8::b")
)

func ether(proto uint16, payload []byte) []byte {
	f := append(append([]byte{}, macB...), macA...)
	f = binary.BigEndian.AppendUint16(f, proto)
	return append(f, payload...)
}

// udp4 is a frame of exactly size bytes (at least 42) carrying UDP over IPv4 with TOS tos.
func udp4(size int, tos byte) []byte {
	payload := make([]byte, size-42)
	for i := range payload {
		payload[i] = byte(i)
	}
	ip := make([]byte, 20)
	ip[0], ip[1] = 0x45, tos
	binary.BigEndian.PutUint16(ip[2:], uint16(20+8+len(payload)))
	ip[8], ip[9] = 64, 17
	copy(ip[12:], ip4A.AsSlice())
	copy(ip[16:], ip4B.AsSlice())
	binary.BigEndian.PutUint16(ip[10:], checksum(ip))
	u := udpHeader(len(payload))
	pseudo := append(append(append([]byte{}, ip[12:20]...), 0, 17), byte((8+len(payload))>>8), byte(8+len(payload)))
	binary.BigEndian.PutUint16(u[6:], checksum(append(append(pseudo, u...), payload...)))
	return ether(0x0800, append(append(ip, u...), payload...))
}

// udp6 is a frame of exactly size bytes (at least 62) carrying UDP over IPv6 with traffic class tc.
func udp6(size int, tc byte) []byte {
	payload := make([]byte, size-62)
	ip := make([]byte, 40)
	binary.BigEndian.PutUint32(ip, 6<<28|uint32(tc)<<20|0x12345)
	binary.BigEndian.PutUint16(ip[4:], uint16(8+len(payload)))
	ip[6], ip[7] = 17, 64
	copy(ip[8:], ip6A.AsSlice())
	copy(ip[24:], ip6B.AsSlice())
	u := udpHeader(len(payload))
	pseudo := append(append([]byte{}, ip[8:40]...), 0, 0, byte((8+len(payload))>>8), byte(8+len(payload)), 0, 0, 0, 17)
	binary.BigEndian.PutUint16(u[6:], checksum(append(append(pseudo, u...), payload...)))
	return ether(0x86dd, append(append(ip, u...), payload...))
}

func udpHeader(n int) []byte {
	u := make([]byte, 8)
	binary.BigEndian.PutUint16(u[0:], 40000)
	binary.BigEndian.PutUint16(u[2:], 5001)
	binary.BigEndian.PutUint16(u[4:], uint16(8+n))
	return u
}

// icmp6 is an ICMPv6 message of this type, behind a hop-by-hop header (router alert) if hbh, as
// MLD is. Its checksum is left zero: the program never reads it.
func icmp6(typ byte, hbh bool) []byte { return icmp6tc(typ, hbh, 0) }

// icmp6tc is icmp6 with traffic class tc.
func icmp6tc(typ byte, hbh bool, tc byte) []byte {
	body := make([]byte, 24)
	body[0] = typ
	next := byte(58)
	if hbh {
		body = append([]byte{58, 0, 5, 2, 0, 0, 1, 0}, body...)
		next = 0
	}
	ip := make([]byte, 40)
	binary.BigEndian.PutUint32(ip, 6<<28|uint32(tc)<<20)
	binary.BigEndian.PutUint16(ip[4:], uint16(len(body)))
	ip[6], ip[7] = next, 255
	copy(ip[8:], ip6A.AsSlice())
	copy(ip[24:], ip6B.AsSlice())
	return ether(0x86dd, append(ip, body...))
}

// igmp4 is an IGMPv2 report over IPv4 with a valid header checksum.
func igmp4() []byte {
	ip := make([]byte, 20)
	ip[0], ip[8], ip[9] = 0x45, 1, 2
	binary.BigEndian.PutUint16(ip[2:], 28)
	copy(ip[12:], ip4A.AsSlice())
	copy(ip[16:], []byte{224, 0, 0, 22})
	binary.BigEndian.PutUint16(ip[10:], checksum(ip))
	return ether(0x0800, append(ip, 0x16, 0, 0, 0, 224, 0, 0, 22))
}

// vlanTagged inserts an 802.1Q tag with pcp and vid after the MAC addresses.
func vlanTagged(frame []byte, pcp, vid uint16) []byte {
	out := append([]byte{}, frame[:12]...)
	out = binary.BigEndian.AppendUint16(out, 0x8100)
	out = binary.BigEndian.AppendUint16(out, pcp<<13|vid)
	return append(out, frame[12:]...)
}

func checksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}
