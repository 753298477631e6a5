package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
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
// is closed (or the process ends). A second agent is refused, naming the first. Any local user may
// bind the name first (abstract names have no permissions): the agent is refused then too, naming
// that process and its uid, and neither it nor status believes what it says (docs/deployment.md).
//
// The socket is also how `qjump status` finds the agent of its network namespace, whatever its
// --state-dir (Find): each connection is sent one line, what announce returns then (an
// announcement in JSON), and closed at once. A refused agent connects only to learn who holds the
// socket (its SO_PEERCRED) and reads nothing; connections left unaccepted would fill the backlog.
func lockNetns(announce func() []byte) (net.Listener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: netnsLockName, Net: "unix"})
	if errors.Is(err, unix.EADDRINUSE) {
		return nil, netnsHeld()
	}
	if err != nil {
		return nil, fmt.Errorf("lock the network namespace (abstract unix socket %s): %w", netnsLockName, err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed
			}
			// One short line into an empty socket buffer does not block; the deadline is there
			// all the same, so that no client can hold up the next.
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = c.Write(announce())
			c.Close()
		}
	}()
	return ln, nil
}

// announcement is what the agent of a network namespace tells whoever connects to its socket:
// where it keeps its state and which interfaces it runs QJump on now.
type announcement struct {
	StateDir string   `json:"state_dir"`
	Devices  []string `json:"devices"`
}

// line is the announcement as sent: one line of JSON.
func (an announcement) line() []byte {
	data, _ := json.Marshal(an) // strings and a slice of them: never fails
	return append(data, '\n')
}

// Running is the qjump agent of this network namespace, as Find sees it.
type Running struct {
	// Pid is its pid in this process's pid namespace; 0 when it runs in one this process cannot
	// see (the host's, seen from a container).
	Pid int
	// Said: it announced StateDir and Devices. An agent of an earlier version holds the socket
	// and says nothing.
	Said     bool
	StateDir string   // its --state-dir, as it was given
	Devices  []string // the interfaces it runs QJump on
}

// Name names the agent by what another process learns of it, the one wording of the refusal of
// a second agent (netnsHeld) and of qjump status: "qjump agent (pid 1234, state directory
// /run/qjump-agent)". An agent in a pid namespace this process cannot see has no pid here
// (SO_PEERCRED gives 0), and one of an earlier version does not say its directory.
func (r Running) Name() string {
	what := []string{"in another pid namespace"}
	if r.Pid != 0 {
		what = []string{fmt.Sprintf("pid %d", r.Pid)}
	}
	if r.StateDir != "" {
		what = append(what, "state directory "+r.StateDir)
	}
	return "qjump agent (" + strings.Join(what, ", ") + ")"
}

// Find finds the qjump agent of this network namespace by the abstract unix socket it holds
// (lockNetns): its pid as the kernel tells a process that connects (SO_PEERCRED), and what it
// announces. Unlike Manages, it needs no state directory: an agent with any --state-dir is found.
// A holder of another uid than root is no agent (netnsHeld): not found.
func Find() (Running, bool) {
	r, uid, err := holder()
	if err != nil || uid != 0 {
		return Running{}, false
	}
	return r, true
}

// holder is whoever holds the socket lockNetns binds, as someone who connects learns it: its pid
// (0 from another pid namespace) and uid from the kernel (SO_PEERCRED), and what it announces.
// Another uid's process is no agent: what it might say is not read.
func holder() (Running, uint32, error) {
	c, err := net.DialTimeout("unix", netnsLockName, time.Second)
	if err != nil {
		return Running{}, 0, err
	}
	defer c.Close()
	cred, err := connCred(c.(*net.UnixConn))
	if err != nil {
		return Running{}, 0, err
	}
	r := Running{Pid: int(cred.Pid)}
	if cred.Uid == 0 {
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		line, err := bufio.NewReader(c).ReadBytes('\n')
		var an announcement
		if err == nil && json.Unmarshal(line, &an) == nil {
			r.Said, r.StateDir, r.Devices = true, an.StateDir, an.Devices
		}
	}
	return r, cred.Uid, nil
}

// netnsHeld is the refusal of a second agent in a network namespace. It names the holder as the
// kernel tells a process that connects to its socket (SO_PEERCRED), with its uid where that is
// not root's, and an agent as status does (Running.Name).
func netnsHeld() error {
	const todo = "run one agent per network namespace: stop the other (its systemd unit, its DaemonSet's pod, " +
		"or the process), or run this one in another network namespace"
	r, uid, err := holder()
	switch {
	case err != nil:
		return fmt.Errorf("another qjump agent runs in this network namespace (it holds the abstract unix socket %s; "+
			"its pid is unknown: %v): %s", netnsLockName, err, todo)
	case uid != 0:
		// Agents run as root: another uid has taken the name for something else.
		return fmt.Errorf("pid %d (uid %d) holds the abstract unix socket %s, which the qjump agent of a network "+
			"namespace binds to be its only one: stop that process, or run the agent in another network namespace",
			r.Pid, uid, netnsLockName)
	}
	return fmt.Errorf("another %s runs in this network namespace: %s", r.Name(), todo)
}

// connCred is the credentials of the process at the other end of c, as the kernel recorded them
// when it listened (SO_PEERCRED).
func connCred(c *net.UnixConn) (*unix.Ucred, error) {
	raw, err := c.SyscallConn()
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
