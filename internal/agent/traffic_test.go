package agent_test

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// udpFlow sends paced UDP datagrams at one socket priority from one namespace to another and
// counts what arrives: the wire's own account of what the dataplane let through.
type udpFlow struct {
	send     *net.UDPConn
	recv     *net.UDPConn
	received atomic.Uint64 // payload bytes
	done     chan struct{}
}

const payload = 1000

func newUDPFlow(fromNS, toNS, toAddr string, priority int) (*udpFlow, error) {
	f := &udpFlow{done: make(chan struct{})}
	dst := &net.UDPAddr{IP: net.ParseIP(toAddr), Port: 5201}
	if err := inNetns(toNS, func() error {
		var err error
		f.recv, err = net.ListenUDP("udp4", dst)
		return err
	}); err != nil {
		return nil, err
	}
	if err := inNetns(fromNS, func() error {
		var err error
		if f.send, err = net.DialUDP("udp4", nil, dst); err != nil {
			return err
		}
		raw, err := f.send.SyscallConn()
		if err != nil {
			return err
		}
		var serr error
		if err := raw.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_PRIORITY, priority)
		}); err != nil {
			return err
		}
		return serr
	}); err != nil {
		f.recv.Close()
		return nil, err
	}
	go f.count()
	return f, nil
}

func (f *udpFlow) count() {
	defer close(f.done)
	buf := make([]byte, 2048)
	for {
		n, err := f.recv.Read(buf)
		if err != nil {
			return
		}
		f.received.Add(uint64(n))
	}
}

// run offers burst datagrams every millisecond for d (burst·8 Mb/s of payload) and returns how
// long it sent for.
func (f *udpFlow) run(d time.Duration, burst int) time.Duration {
	msg := make([]byte, payload)
	start := time.Now()
	for next := start; time.Since(start) < d; next = next.Add(time.Millisecond) {
		for range burst {
			if _, err := f.send.Write(msg); err != nil && !errors.Is(err, syscall.ENOBUFS) && !errors.Is(err, os.ErrDeadlineExceeded) {
				// A policed datagram is dropped silently; anything else ends the flow.
				return time.Since(start)
			}
		}
		time.Sleep(time.Until(next))
	}
	return time.Since(start)
}

// close stops the counter after the last datagrams in flight have arrived.
func (f *udpFlow) close() {
	time.Sleep(100 * time.Millisecond)
	f.send.Close()
	f.recv.Close()
	<-f.done
}
