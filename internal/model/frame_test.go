package model

import "testing"

func TestWireBytes(t *testing.T) {
	tests := []struct {
		name     string
		frameLen Bytes
		want     Bytes
	}{
		{"empty frame is padded to the minimum", 0, 84},
		{"a 42-byte ARP request is padded", 42, 84},
		{"exactly the minimum frame", 60, 84},
		{"one byte above the minimum", 61, 85},
		{"a 1472-byte UDP payload over IPv4: a full 1514-byte frame", 1514, 1538},
		{"a full frame with an 802.1Q tag", 1518, 1542},
		{"a jumbo frame", 9014, 9038},
	}
	for _, tt := range tests {
		if got := WireBytes(tt.frameLen); got != tt.want {
			t.Errorf("%s: WireBytes(%d) = %d, want %d", tt.name, tt.frameLen, got, tt.want)
		}
	}
	if MinWireFrame != 84 || FrameOverhead != 24 || MinFrame != 60 {
		t.Errorf("MinWireFrame %d, FrameOverhead %d, MinFrame %d; want 84, 24, 60 (IEEE 802.3)",
			MinWireFrame, FrameOverhead, MinFrame)
	}
}

func TestWireBytesGSO(t *testing.T) {
	const tcp4 = 14 + 20 + 32 // Ethernet, IPv4, TCP with timestamps: 66 bytes of headers
	const udp4 = 14 + 20 + 8
	tests := []struct {
		name      string
		frameLen  Bytes
		segs      int
		headerLen Bytes
		gsoSize   Bytes
		want      Bytes
	}{
		{"one segment is one frame", 1514, 1, tcp4, 1448, 1538},
		{"segs 0 (not GSO) is one frame", 100, 0, tcp4, 0, 124},
		{"two full TCP segments", tcp4 + 2*1448, 2, tcp4, 1448, 2 * 1538},
		{"45 segments of a 64 kB TSO packet, the last one short", tcp4 + 44*1448 + 100, 45, tcp4, 1448,
			44*1538 + (tcp4 + 100 + 24)},
		{"a last TCP segment of one byte is padded", tcp4 + 1448 + 1, 2, 54, 1448 + 12, 1538 + 84},
		{"UDP GSO with a short last datagram is padded", udp4 + 3*1000 + 5, 4, udp4, 1000, 3*(udp4+1000+24) + 84},
		{"inconsistent segs: the kernel's estimate with overhead", 10000, 3, tcp4, 0, 10000 + 2*tcp4 + 3*24},
		{"inconsistent and tiny: never below segs minimum frames", 70, 3, 10, 0, 3 * 84},
	}
	for _, tt := range tests {
		if got := WireBytesGSO(tt.frameLen, tt.segs, tt.headerLen, tt.gsoSize); got != tt.want {
			t.Errorf("%s: WireBytesGSO(%d, %d, %d, %d) = %d, want %d", tt.name, tt.frameLen, tt.segs,
				tt.headerLen, tt.gsoSize, got, tt.want)
		}
	}
}

// A super-packet costs exactly what its segments cost sent one by one.
func TestWireBytesGSOIsTheSumOfItsSegments(t *testing.T) {
	for _, hdr := range []Bytes{42, 54, 66, 86} {
		for _, gso := range []Bytes{1, 5, 100, 1448, 8948} {
			for _, payload := range []Bytes{1, 17, 1448, 1449, 65000} {
				segs := int((payload + gso - 1) / gso)
				var sum Bytes
				for left := payload; left > 0; left -= gso {
					sum += WireBytes(hdr + min(left, gso))
				}
				if got := WireBytesGSO(hdr+payload, segs, hdr, gso); got != sum {
					t.Errorf("hdr %d gso %d payload %d (%d segs): %d, want the segments' sum %d",
						hdr, gso, payload, segs, got, sum)
				}
			}
		}
	}
}

func TestFullFrameWire(t *testing.T) {
	tests := []struct {
		mtu    int
		tagged bool
		want   Bytes
	}{
		{1500, false, 1538},
		{1500, true, 1542},
		{9000, false, 9038},
		{1280, false, 1318},
		{65536, false, 65574}, // loopback
		{0, false, 84},        // no payload at all: still a minimum frame
	}
	for _, tt := range tests {
		if got := FullFrameWire(tt.mtu, tt.tagged); got != tt.want {
			t.Errorf("FullFrameWire(%d, %v) = %d, want %d", tt.mtu, tt.tagged, got, tt.want)
		}
	}
	if DefaultPacket != 1538 {
		t.Errorf("DefaultPacket = %d, want 1538", DefaultPacket)
	}
}
