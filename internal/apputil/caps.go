package apputil

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/model"
)

// MaxUnprivilegedLevel is the highest priority the kernel lets a socket take without
// CAP_NET_ADMIN or CAP_NET_RAW (sk_setsockopt refuses SO_PRIORITY above 6).
const MaxUnprivilegedLevel model.Level = 6

// ErrLevelNeedsCapability is returned before starting a program at a level its sockets could not
// take.
//
// File capabilities on CMD (setcap) do not help: they put the program in secure-execution mode,
// where the dynamic linker ignores LD_PRELOAD.
var ErrLevelNeedsCapability = errors.New("level 7 needs CAP_NET_ADMIN or CAP_NET_RAW, which " +
	"this process does not have (the kernel refuses SO_PRIORITY above 6 without them): run as root, " +
	"give qjump the capability as an ambient one (systemd AmbientCapabilities=CAP_NET_RAW, or " +
	"capsh --addamb=cap_net_raw), or use --mode cgroup, which sets the priority from the kernel")

const (
	capNetAdmin = 12
	capNetRaw   = 13
)

// checkLevelCapability refuses a level above 6 unless the program exec'd next will hold
// CAP_NET_ADMIN or CAP_NET_RAW: the capability must be effective now, and survive exec, which
// it does for root and for ambient capabilities.
func checkLevelCapability(l model.Level) error {
	if l <= MaxUnprivilegedLevel {
		return nil
	}
	caps, err := readCaps()
	if err != nil {
		return fmt.Errorf("check capabilities for level %d: %w", l, err)
	}
	keeps := os.Geteuid() == 0 || caps["CapAmb"]&netCaps != 0
	if caps["CapEff"]&netCaps == 0 || !keeps {
		return ErrLevelNeedsCapability
	}
	return nil
}

const netCaps = 1<<capNetAdmin | 1<<capNetRaw

// readCaps reads the capability sets of this process from /proc/self/status.
func readCaps() (map[string]uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	caps := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || !strings.HasPrefix(key, "Cap") {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", key, err)
		}
		caps[key] = v
	}
	return caps, sc.Err()
}
