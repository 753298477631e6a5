package dataplane

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNoPrivilege means the process lacks the capabilities to load, pin and attach programs.
var ErrNoPrivilege = errors.New("qjump's dataplane needs root")

// checkPrivilege looks for CAP_NET_ADMIN (qdiscs, filters, TCX) and CAP_SYS_ADMIN (bpffs, BPF
// objects) before anything is touched, so that a user without them gets one clear line instead of
// whichever syscall fails first.
func checkPrivilege() error {
	caps, err := ReadCaps()
	if err != nil {
		return nil // cannot tell: let the syscalls speak
	}
	if need := CapMask(unix.CAP_NET_ADMIN, unix.CAP_SYS_ADMIN); caps.Eff&need != need {
		return fmt.Errorf("%w (CAP_NET_ADMIN and CAP_SYS_ADMIN): run it with sudo", ErrNoPrivilege)
	}
	return nil
}

// Caps are the capability sets of this process that QJump decides on, as masks of 1<<unix.CAP_*.
type Caps struct {
	Eff uint64 // effective: what this process may do now
	Amb uint64 // ambient: what survives exec into a program without file capabilities
}

// CapMask is the mask of caps (unix.CAP_*), to test against Caps.
func CapMask(caps ...int) uint64 {
	var m uint64
	for _, c := range caps {
		m |= 1 << c
	}
	return m
}

// ReadCaps reads CapEff and CapAmb from /proc/self/status (CapAmb is 0 on kernels before 4.3,
// which lack it).
func ReadCaps() (Caps, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return Caps{}, fmt.Errorf("read capabilities: %w", err)
	}
	defer f.Close()
	var caps Caps
	sets := map[string]*uint64{"CapEff": &caps.Eff, "CapAmb": &caps.Amb}
	seenEff := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), ":")
		dst := sets[key]
		if dst == nil {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64)
		if err != nil {
			return Caps{}, fmt.Errorf("parse %s: %w", key, err)
		}
		*dst = v
		seenEff = seenEff || key == "CapEff"
	}
	if err := sc.Err(); err != nil {
		return Caps{}, fmt.Errorf("read capabilities: %w", err)
	}
	if !seenEff {
		return Caps{}, errors.New("read capabilities: no CapEff in /proc/self/status")
	}
	return caps, nil
}
