// Command goprobe is the Go counterpart of preload/testdata/probe.c, built statically
// (CGO_ENABLED=0) so that LD_PRELOAD cannot reach it: it reports the SO_PRIORITY of its TCP, UDP
// and accepted sockets, one "name value" line each; "set N" also sets SO_PRIORITY N on a TCP
// connection and reports "set RET PRIORITY"; "send ADDR:PORT N [Q]" sends N UDP datagrams, after
// setting SO_PRIORITY Q itself if given, and reports "sent N PRIORITY"; "serve ADDR:PORT" answers
// one TCP connection with a greeting and reports "served PRIORITY" (the accepted socket's).
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

func main() {
	if (len(os.Args) == 4 || len(os.Args) == 5) && os.Args[1] == "send" {
		send(os.Args[2:])
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "serve" {
		serve(os.Args[2])
		return
	}
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

func send(args []string) {
	n, err := strconv.Atoi(args[1])
	check(err)
	to, err := net.ResolveUDPAddr("udp4", args[0])
	check(err)
	// Unconnected, so that an ICMP port unreachable does not fail the next write.
	c, err := net.ListenPacket("udp4", ":0")
	check(err)
	defer c.Close()
	if len(args) == 3 {
		p, err := strconv.Atoi(args[2])
		check(err)
		setPriority(c.(syscall.Conn), p)
	}
	sent := 0
	for range n {
		if _, err := c.WriteTo([]byte("qjump"), to); err == nil {
			sent++
		}
	}
	fmt.Println("sent", sent, priority(c.(syscall.Conn)))
}

func serve(addr string) {
	ln, err := net.Listen("tcp4", addr)
	check(err)
	defer ln.Close()
	fmt.Println("listening")
	c, err := ln.Accept()
	check(err)
	defer c.Close()
	_, err = c.Write([]byte("hello from a static Go server\n"))
	check(err)
	fmt.Println("served", priority(c.(syscall.Conn)))
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
