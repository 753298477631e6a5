package agent

import (
	"errors"
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// netnsLockName is the abstract unix socket an agent binds to be the one agent of its network
// namespace. Interface names and hooks are per network namespace, so two agents there, whatever
// their --state-dir, would bring QJump up on the same interfaces and reload each other's
// configuration back and forth. Abstract socket names are per network namespace too, and the
// kernel frees one when the last process holding it ends, however it ends: after a kill -9 the
// next agent starts, with no stale lock to remove.
const netnsLockName = "@qjump-agent"

// lockNetns makes this agent the only one in its network namespace until the returned listener
// is closed (or the process ends). A second agent is refused, naming the first.
func lockNetns() (net.Listener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: netnsLockName, Net: "unix"})
	if errors.Is(err, unix.EADDRINUSE) {
		return nil, netnsHeld()
	}
	if err != nil {
		return nil, fmt.Errorf("lock the network namespace (abstract unix socket %s): %w", netnsLockName, err)
	}
	// Accept and close at once: a refused agent connects only to learn who holds the socket (its
	// SO_PEERCRED), and connections left unaccepted would fill the backlog.
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed
			}
			c.Close()
		}
	}()
	return ln, nil
}

// netnsHeld is the refusal of a second agent in a network namespace. It names the holder as the
// kernel tells a process that connects to its socket (SO_PEERCRED): the pid in this process's pid
// namespace, 0 when the holder is in one this process cannot see (a container's), and the uid.
func netnsHeld() error {
	const todo = "run one agent per network namespace: stop the other (its systemd unit, its DaemonSet's pod, " +
		"or the process), or run this one in another network namespace"
	cred, err := peerCred(netnsLockName)
	switch {
	case err != nil:
		return fmt.Errorf("another qjump agent runs in this network namespace (it holds the abstract unix socket %s; "+
			"its pid is unknown: %v): %s", netnsLockName, err, todo)
	case cred.Pid == 0:
		return fmt.Errorf("another qjump agent runs in this network namespace, in another pid namespace (a container, "+
			"or the host seen from one): %s", todo)
	case cred.Uid != 0:
		// Agents run as root: another uid has taken the name for something else.
		return fmt.Errorf("pid %d (uid %d) holds the abstract unix socket %s, which the qjump agent of a network "+
			"namespace binds to be its only one: stop that process, or run the agent in another network namespace",
			cred.Pid, cred.Uid, netnsLockName)
	}
	return fmt.Errorf("another qjump agent (pid %d) runs in this network namespace: %s", cred.Pid, todo)
}

// peerCred connects to the abstract unix socket name and returns its holder's credentials.
func peerCred(name string) (*unix.Ucred, error) {
	c, err := net.DialTimeout("unix", name, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, credErr
}
