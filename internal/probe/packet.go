package probe

import (
	"encoding/binary"
	"errors"
)

// Kinds of probe packet.
const (
	kindRequest byte = 1 // echo me, with your receive stamp
	kindReply   byte = 2 // the echo of a request
	kindOneWay  byte = 3 // record my arrival, do not answer
)

const magic uint32 = 0x716a7062 // "qjpb"

// headerLen is the probe header; packets are padded to the requested size after it.
const headerLen = 4 + 1 + 1 + 2 + 8 + 8 + 8

// MinSize is the smallest probe payload.
const MinSize = headerLen

// header is a probe packet's content. Times are CLOCK_REALTIME nanoseconds.
type header struct {
	kind     byte
	sender   uint16 // the sending host's id, so one receiver can tell fan-in senders apart
	seq      uint64
	sendNS   int64 // sender's application clock just before sendmsg
	serverNS int64 // in a reply: the kernel receive stamp of the request at the server
}

func (h header) marshal(buf []byte) {
	binary.BigEndian.PutUint32(buf[0:], magic)
	buf[4] = h.kind
	binary.BigEndian.PutUint16(buf[6:], h.sender)
	binary.BigEndian.PutUint64(buf[8:], h.seq)
	binary.BigEndian.PutUint64(buf[16:], uint64(h.sendNS))
	binary.BigEndian.PutUint64(buf[24:], uint64(h.serverNS))
}

var errNotProbe = errors.New("not a probe packet")

func parseHeader(buf []byte) (header, error) {
	if len(buf) < headerLen || binary.BigEndian.Uint32(buf) != magic {
		return header{}, errNotProbe
	}
	return header{
		kind:     buf[4],
		sender:   binary.BigEndian.Uint16(buf[6:]),
		seq:      binary.BigEndian.Uint64(buf[8:]),
		sendNS:   int64(binary.BigEndian.Uint64(buf[16:])),
		serverNS: int64(binary.BigEndian.Uint64(buf[24:])),
	}, nil
}
