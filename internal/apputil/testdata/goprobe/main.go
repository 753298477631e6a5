// Command goprobe is the Go counterpart of preload/testdata/probe.c, built statically
// (CGO_ENABLED=0) so that LD_PRELOAD cannot reach it: it reports the SO_PRIORITY of its TCP, UDP
// and accepted sockets, one "name value" line each; "set N" also sets SO_PRIORITY N on a TCP
// connection and reports "set RET PRIORITY".
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

func main() {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	check(err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		check(err)
		accepted <- c
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	check(err)
	defer c.Close()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	check(err)
	defer udp.Close()
	fmt.Println("tcp", priority(c.(syscall.Conn)))
	fmt.Println("udp", priority(udp.(syscall.Conn)))
	fmt.Println("accepted", priority((<-accepted).(syscall.Conn)))
	if len(os.Args) == 3 && os.Args[1] == "set" {
		v, err := strconv.Atoi(os.Args[2])
		check(err)
		fmt.Println("set", setPriority(c.(syscall.Conn), v), priority(c.(syscall.Conn)))
	}
}

func priority(c syscall.Conn) int {
	v := -1
	control(c, func(fd int) { v, _ = syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_PRIORITY) })
	return v
}

func setPriority(c syscall.Conn, p int) int {
	ret := 0
	control(c, func(fd int) {
		if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_PRIORITY, p) != nil {
			ret = -1
		}
	})
	return ret
}

func control(c syscall.Conn, f func(fd int)) {
	raw, err := c.SyscallConn()
	check(err)
	check(raw.Control(func(fd uintptr) { f(int(fd)) }))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "goprobe:", err)
		os.Exit(1)
	}
}
