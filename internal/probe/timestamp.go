package probe

import (
	"fmt"
	"net"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rxStampFlags asks for software stamps on receive only: what a server needs. A socket that also
// asks for transmit stamps gets one on its error queue for every packet it sends, and the kernel
// charges that queue to the socket's receive buffer, so a sender must read them back (the client
// does) or they crowd out the packets it is there to receive.
const rxStampFlags = unix.SOF_TIMESTAMPING_SOFTWARE | unix.SOF_TIMESTAMPING_RX_SOFTWARE

// txRxStampFlags adds software transmit stamps, the client's. OPT_TSONLY returns them without the
// packet, OPT_ID numbers them per send so they can be matched to a sequence.
const txRxStampFlags = rxStampFlags | unix.SOF_TIMESTAMPING_TX_SOFTWARE | unix.SOF_TIMESTAMPING_OPT_ID |
	unix.SOF_TIMESTAMPING_OPT_TSONLY

// stampSocket is a UDP socket with kernel timestamping on.
type stampSocket struct {
	conn *net.UDPConn
	fd   int
	oob  []byte
}

func newStampSocket(conn *net.UDPConn, tos, flags int) (*stampSocket, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("get socket: %w", err)
	}
	s := &stampSocket{conn: conn, oob: make([]byte, 512)}
	var serr error
	err = raw.Control(func(fd uintptr) {
		s.fd = int(fd)
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPING, flags)
		if serr == nil && tos > 0 {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS, tos)
		}
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return nil, fmt.Errorf("enable SO_TIMESTAMPING: %w", err)
	}
	return s, nil
}

// setReceiveBuffer sets SO_RCVBUF to bytes, beyond net.core.rmem_max where the process may
// (SO_RCVBUFFORCE needs CAP_NET_ADMIN, which the testbed has), else as far as rmem_max allows.
func (s *stampSocket) setReceiveBuffer(bytes int) error {
	// The kernel doubles the value for its own bookkeeping and reports the doubled size.
	if err := unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, bytes/2); err == nil {
		return nil
	}
	if err := unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_RCVBUF, bytes/2); err != nil {
		return fmt.Errorf("set receive buffer to %d bytes: %w", bytes, err)
	}
	return nil
}

// drops is how many datagrams the kernel dropped at this socket (SO_MEMINFO's SK_MEMINFO_DROPS):
// receive buffer full, or a packet that failed the socket's checks.
func (s *stampSocket) drops() (uint32, error) {
	var info [unix.SK_MEMINFO_VARS]uint32
	size := uint32(unsafe.Sizeof(info))
	_, _, errno := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(s.fd), unix.SOL_SOCKET, unix.SO_MEMINFO,
		uintptr(unsafe.Pointer(&info[0])), uintptr(unsafe.Pointer(&size)), 0)
	if errno != 0 {
		return 0, fmt.Errorf("read socket drops (SO_MEMINFO): %w", errno)
	}
	return info[unix.SK_MEMINFO_DROPS], nil
}

// now is the application clock, the same CLOCK_REALTIME the kernel stamps use.
func now() int64 { return time.Now().UnixNano() }

// read receives one datagram and its kernel receive stamp (0 if the kernel gave none).
func (s *stampSocket) read(buf []byte, deadline time.Time) (n int, from *net.UDPAddr, stampNS int64, err error) {
	if err := s.conn.SetReadDeadline(deadline); err != nil {
		return 0, nil, 0, err
	}
	n, oobn, _, from, err := s.conn.ReadMsgUDP(buf, s.oob)
	if err != nil {
		return 0, nil, 0, err
	}
	return n, from, stampFrom(s.oob[:oobn]), nil
}

// txStamps drains the error queue and returns the transmit stamps by OPT_ID (the send's index
// on this socket, from 0).
func (s *stampSocket) txStamps() map[uint32]int64 {
	out := map[uint32]int64{}
	buf := make([]byte, 64)
	for {
		_, oobn, _, _, err := unix.Recvmsg(s.fd, buf, s.oob, unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
		if err != nil {
			return out
		}
		var stamp int64
		id, ok := uint32(0), false
		msgs, _ := unix.ParseSocketControlMessage(s.oob[:oobn])
		for _, m := range msgs {
			switch {
			case m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPING:
				stamp = softwareStamp(m.Data)
			case m.Header.Level == unix.SOL_IP && m.Header.Type == unix.IP_RECVERR &&
				len(m.Data) >= int(unsafe.Sizeof(unix.SockExtendedErr{})):
				ee := (*unix.SockExtendedErr)(unsafe.Pointer(&m.Data[0]))
				if ee.Origin == unix.SO_EE_ORIGIN_TIMESTAMPING {
					id, ok = ee.Data, true
				}
			}
		}
		if ok && stamp != 0 {
			out[id] = stamp
		}
	}
}

// awaitTxStamps adds transmit stamps to tx until it holds want of them or within passes. The
// kernel queues a stamp on the socket's error queue, which poll reports as POLLERR: waiting on
// that is waiting for the stamp itself. A pending socket error (an ICMP error) also raises
// POLLERR; it is cleared, and a wake-up with neither a stamp nor an error ends the wait.
func (s *stampSocket) awaitTxStamps(tx map[uint32]int64, want int, within time.Duration) {
	end := time.Now().Add(within)
	s.collectTxStamps(tx)
	for len(tx) < want {
		left := time.Until(end)
		if left <= 0 {
			return
		}
		fds := []unix.PollFd{{Fd: int32(s.fd)}} // POLLERR is reported without being asked for
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		if s.collectTxStamps(tx) == 0 {
			if e, _ := unix.GetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_ERROR); e == 0 {
				return
			}
		}
	}
}

// collectTxStamps drains the error queue into tx and returns how many stamps it added.
func (s *stampSocket) collectTxStamps(tx map[uint32]int64) int {
	n := 0
	for id, stamp := range s.txStamps() {
		if _, ok := tx[id]; !ok {
			n++
		}
		tx[id] = stamp
	}
	return n
}

func stampFrom(oob []byte) int64 {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPING {
			return softwareStamp(m.Data)
		}
	}
	return 0
}

// softwareStamp reads ts[0] of struct scm_timestamping: the software stamp (ts[2] is hardware).
func softwareStamp(b []byte) int64 {
	if len(b) < int(unsafe.Sizeof(unix.Timespec{})) {
		return 0
	}
	ts := (*unix.Timespec)(unsafe.Pointer(&b[0]))
	return ts.Nano()
}
