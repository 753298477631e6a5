package model

// P and every budget count wire bytes: the line time, in bytes at R, that a frame occupies on an
// Ethernet link (docs/model.md, "What P and a budget count"). A frame of len bytes as the host's
// egress sees it (skb->len: destination MAC to the end of the payload, an 802.1Q tag included, no
// FCS) is padded to MinFrame and followed by FrameOverhead bytes of line time. Counted this way,
// E = m·n·P·8/R is exactly the time n hosts need to send m budgets each, small frames included.

const (
	// FrameOverhead is the line time every frame takes beyond skb->len (IEEE 802.3): 4 B FCS,
	// 7 B preamble and 1 B start-of-frame delimiter, 12 B inter-frame gap.
	FrameOverhead Bytes = 4 + 7 + 1 + 12
	// MinFrame is the shortest frame without its FCS (64 B with it): shorter ones are padded.
	MinFrame Bytes = 60
	// MinWireFrame is the line time of the shortest frame, 84 B: the smallest P and the smallest
	// budget that can send anything.
	MinWireFrame = MinFrame + FrameOverhead
	// EthernetHeader is the destination and source MAC and the ethertype.
	EthernetHeader Bytes = 14
	// VLANTag is an 802.1Q tag, which PCP marking pushes on an untagged frame.
	VLANTag Bytes = 4
	// DefaultMTU is the MTU calc takes without --mtu, having no device: Ethernet's 1500 bytes.
	DefaultMTU = 1500
)

// DefaultPacket is P when nothing says otherwise and no device is known: one full frame of a
// 1500-byte MTU, untagged, on the wire (1538 B).
var DefaultPacket = FullFrameWire(DefaultMTU, false)

// WireBytes is the line time of one frame of frameLen bytes (skb->len): max(frameLen, MinFrame)
// plus FrameOverhead.
func WireBytes(frameLen Bytes) Bytes {
	return max(frameLen, MinFrame) + FrameOverhead
}

// WireBytesGSO is the line time of a GSO/TSO super-packet of frameLen bytes (skb->len: one copy
// of the headers and all the payload) that the stack or the NIC cuts into segs frames, each
// repeating the headerLen bytes of L2-L4 headers and carrying gsoSize bytes of payload, the last
// one the rest (the kernel's gso_segs = ⌈payload/gso_size⌉). Every segment pays its own headers,
// padding and FrameOverhead. A packet with segs ≤ 1 is one frame.
// The dataplane's program charges the same in C (bpf/qjump.bpf.c); this is the oracle its tests
// hold it to, and what docs/model.md's wire bytes mean.
func WireBytesGSO(frameLen Bytes, segs int, headerLen, gsoSize Bytes) Bytes {
	if segs <= 1 {
		return WireBytes(frameLen)
	}
	full := Bytes(segs - 1)
	last := frameLen - headerLen - full*gsoSize
	if last < 1 || last > gsoSize {
		// Not what the kernel builds: charge the kernel's own estimate for qdiscs
		// (qdisc_pkt_len_init: len + (segs−1)·headers) with every segment's overhead, never
		// less than segs minimum frames.
		return max(frameLen+full*headerLen, Bytes(segs)*MinFrame) + Bytes(segs)*FrameOverhead
	}
	return full*WireBytes(headerLen+gsoSize) + WireBytes(headerLen+last)
}

// FullFrameWire is the line time of the largest frame a device of this MTU sends: the MTU, the
// Ethernet header, a VLAN tag when the dataplane pushes one (tagged), and FrameOverhead; 1538 B for
// MTU 1500 untagged.
func FullFrameWire(mtu int, tagged bool) Bytes {
	b := Bytes(mtu) + EthernetHeader
	if tagged {
		b += VLANTag
	}
	return WireBytes(b)
}
