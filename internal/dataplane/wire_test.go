package dataplane

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/model"
)

// TestWireBytesAgreeWithTheModel: the program charges a packet exactly what model.WireBytes and
// model.WireBytesGSO say it costs on the wire, for plain frames of every size class and for
// GSO packets (TCP with options, UDP, IPv6, a padded last segment, a size the kernel would not
// build), with gso_segs and gso_size set as the stack sets them. The level is unlimited, so the
// sent bytes counter shows the charge of each packet alone.
func TestWireBytesAgreeWithTheModel(t *testing.T) {
	cases := []struct {
		name              string
		frame             []byte
		segs, gso, header int // header: the L2-L4 bytes each segment repeats
	}{
		{name: "minimum frame, padded", frame: udp4(42, 0)},
		{name: "60-byte frame", frame: udp4(60, 0)},
		{name: "full frame", frame: udp4(1514, 0)},
		{name: "IPv6 frame", frame: udp6(700, 0)},
		{name: "TCP/IPv4 GSO, 3 full segments", frame: tcp4(14+20+32+3*1000, 32), segs: 3, gso: 1000, header: 14 + 20 + 32},
		{name: "TCP/IPv4 GSO, short last segment", frame: tcp4(14+20+20+2*1200+300, 20), segs: 3, gso: 1200, header: 14 + 20 + 20},
		{name: "TCP/IPv4 GSO, last segment padded", frame: tcp4(14+20+20+1400+1, 20), segs: 2, gso: 1400, header: 14 + 20 + 20},
		{name: "UDP/IPv4 GSO", frame: udp4(14+20+8+3*1100, 0), segs: 3, gso: 1100, header: 14 + 20 + 8},
		{name: "UDP/IPv6 GSO", frame: udp6(14+40+8+2*1000+17, 0), segs: 3, gso: 1000, header: 14 + 40 + 8},
		{name: "GSO sizes the kernel would not build", frame: udp4(14+20+8+1000, 0), segs: 4, gso: 200, header: 14 + 20 + 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := testConfig()
			d.Mark = config.MarkNone
			r := newRunner(t, d)
			in := skbContext{Priority: 0}
			want := model.WireBytes(model.Bytes(len(tc.frame)))
			if tc.segs > 0 {
				in.GsoSegs, in.GsoSize = uint32(tc.segs), uint32(tc.gso)
				want = model.WireBytesGSO(model.Bytes(len(tc.frame)), tc.segs, model.Bytes(tc.header), model.Bytes(tc.gso))
			}
			if v, _, _ := r.runCtx(in, tc.frame); v != verdictNext {
				t.Fatalf("verdict %#x, want pass", v)
			}
			if got := r.counters()[0].SentBytes; got != uint64(want) {
				t.Errorf("charged %d wire bytes, model says %d", got, want)
			}
		})
	}
}

// TestGSOPacketIsChargedEverySegment: a GSO packet that fits a budget only when counted as one
// frame is refused: its segments' headers and overhead are what the wire carries.
func TestGSOPacketIsChargedEverySegment(t *testing.T) {
	d := testConfig()
	d.Model.Factors[7] = model.Limited(3) // 3000 wire bytes
	r := newRunner(t, d)
	frame := tcp4(14+20+20+2*1440, 20) // 2934 bytes of skb->len; on the wire 2·(54+1440+24) = 3036
	in := skbContext{Priority: 7, GsoSegs: 2, GsoSize: 1440}
	if v, _, _ := r.runCtx(in, frame); v != verdictDrop {
		t.Fatalf("verdict %#x, want drop: charged as one %d-byte frame", v, len(frame))
	}
	c := r.counters()[7]
	expect(t, "oversize", c.OversizePackets, 1)
	expect(t, "oversize bytes", c.OversizeBytes, 3036)
}

// tcp4 is a TCP/IPv4 frame of size bytes whose TCP header is hdr bytes (20..60: options padded
// with NOPs), payload after it. The IP header's checksum is set; TCP's is left zero: the program
// reads only the data offset.
func tcp4(size, hdr int) []byte {
	if hdr < 20 || hdr > 60 || hdr%4 != 0 {
		panic(fmt.Sprintf("tcp4: header of %d bytes", hdr))
	}
	ip := make([]byte, 20)
	ip[0], ip[8], ip[9] = 0x45, 64, 6
	binary.BigEndian.PutUint16(ip[2:], uint16(size-14))
	copy(ip[12:], ip4A.AsSlice())
	copy(ip[16:], ip4B.AsSlice())
	binary.BigEndian.PutUint16(ip[10:], checksum(ip))
	tcp := make([]byte, hdr)
	binary.BigEndian.PutUint16(tcp[0:], 40000)
	binary.BigEndian.PutUint16(tcp[2:], 5001)
	tcp[12], tcp[13] = byte(hdr/4)<<4, 0x18
	for i := 20; i < hdr; i++ {
		tcp[i] = 1 // NOP
	}
	return ether(0x0800, append(append(ip, tcp...), make([]byte, size-14-20-hdr)...))
}
