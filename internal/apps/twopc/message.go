package twopc

import (
	"encoding/binary"
	"errors"
	"io"
)

// kind is a message's type.
type kind byte

const (
	kindPrepare kind = 1 // coordinator: can you commit txn?
	kindVote    kind = 2 // server: yes (ok) or no
	kindDecide  kind = 3 // coordinator: commit (ok) or abort
	kindDone    kind = 4 // server: applied the decision
	kindAck     kind = 5 // udp transport: datagram seq arrived
)

func (k kind) String() string {
	switch k {
	case kindPrepare:
		return "prepare"
	case kindVote:
		return "vote"
	case kindDecide:
		return "decide"
	case kindDone:
		return "done"
	case kindAck:
		return "ack"
	}
	return "unknown"
}

const magic uint32 = 0x716a3270 // "qj2p"

// headerLen is the wire header; a PREPARE is followed by its payload.
const headerLen = 4 + 1 + 1 + 2 + 8 + 8

// MaxSize is the largest PREPARE payload: one UDP datagram with the header.
const MaxSize = 65000

// message is one protocol or transport message.
type message struct {
	kind    kind
	ok      bool   // vote yes / decide commit
	payload int    // bytes after the header (PREPARE only)
	seq     uint64 // udp transport: this datagram's number (0: not acknowledged)
	txn     uint64
}

var errNotOurs = errors.New("not a two-phase commit message")

func (m message) marshal() []byte {
	b := make([]byte, headerLen+m.payload)
	binary.BigEndian.PutUint32(b[0:], magic)
	b[4] = byte(m.kind)
	if m.ok {
		b[5] = 1
	}
	binary.BigEndian.PutUint16(b[6:], uint16(m.payload))
	binary.BigEndian.PutUint64(b[8:], m.seq)
	binary.BigEndian.PutUint64(b[16:], m.txn)
	return b
}

func parseHeader(b []byte) (message, error) {
	if len(b) < headerLen || binary.BigEndian.Uint32(b) != magic {
		return message{}, errNotOurs
	}
	return message{kind: kind(b[4]), ok: b[5] == 1, payload: int(binary.BigEndian.Uint16(b[6:])),
		seq: binary.BigEndian.Uint64(b[8:]), txn: binary.BigEndian.Uint64(b[16:])}, nil
}

// parse reads one datagram.
func parse(b []byte) (message, error) {
	m, err := parseHeader(b)
	if err == nil && len(b) != headerLen+m.payload {
		return message{}, errNotOurs
	}
	return m, err
}

// readFrame reads one message from a stream (tcp): the header, then the payload it announces.
func readFrame(r io.Reader, buf []byte) (message, error) {
	if _, err := io.ReadFull(r, buf[:headerLen]); err != nil {
		return message{}, err
	}
	m, err := parseHeader(buf[:headerLen])
	if err != nil {
		return message{}, err
	}
	_, err = io.ReadFull(r, buf[headerLen:headerLen+m.payload])
	return m, err
}
