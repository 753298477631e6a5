package testutil

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"
)

// loopbackHost counts the loopback addresses handed out, so two calls in one test binary never
// share one.
var loopbackHost atomic.Uint32

// LoopbackAddrs returns n address:port pairs free for tcp and udp, each on a loopback address of
// its own other than 127.0.0.1, for tests whose programs listen on addresses chosen in advance.
//
// A port found free on 127.0.0.1 and closed again is free for anyone until the program listens,
// and the first to come is the test's own outgoing connections: the kernel picks their source
// ports from the same range, on 127.0.0.1, the source of every loopback route. One of them took a
// barrier participant's port between the pick and its listen in CI ("bind: address already in
// use"). A connection bound to 127.0.0.1 never conflicts with a listener on 127.0.0.2.
func LoopbackAddrs(t testing.TB, n int) []string {
	t.Helper()
	out := make([]string, 0, n)
	for tries := 0; len(out) < n; tries++ {
		if tries == 20*n {
			t.Fatalf("no port free for tcp and udp on loopback after %d tries", tries)
		}
		c := loopbackHost.Add(1)
		ip := fmt.Sprintf("127.0.%d.%d", 1+c/250%250, 2+c%250)
		if addr, ok := freeOn(t, ip); ok {
			out = append(out, addr)
		}
	}
	return out
}

// freeOn returns a port on ip that tcp and udp both let the test bind, or false.
func freeOn(t testing.TB, ip string) (string, bool) {
	t.Helper()
	ln, err := net.Listen("tcp4", ip+":0")
	if err != nil {
		t.Fatalf("listen on loopback address %s: %v", ip, err)
	}
	addr := ln.Addr().String()
	ln.Close()
	pc, err := net.ListenPacket("udp4", addr)
	if err != nil {
		return "", false
	}
	pc.Close()
	return addr, true
}
