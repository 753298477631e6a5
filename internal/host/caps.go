package host

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

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
