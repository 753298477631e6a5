package apputil

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
)

// maxUnprivilegedLevel is the highest priority the kernel lets a socket take without
// CAP_NET_ADMIN or CAP_NET_RAW (sk_setsockopt refuses SO_PRIORITY above 6).
const maxUnprivilegedLevel model.Level = 6

// ErrLevelNeedsCapability is returned before starting a program at a level its sockets could not
// take.
//
// File capabilities on CMD (setcap) do not help: they put the program in secure-execution mode,
// where the dynamic linker ignores LD_PRELOAD.
var ErrLevelNeedsCapability = errors.New("level 7 needs CAP_NET_ADMIN or CAP_NET_RAW, which " +
	"this process does not have (the kernel refuses SO_PRIORITY above 6 without them): run as root, " +
	"give qjump the capability as an ambient one (systemd AmbientCapabilities=CAP_NET_RAW, or " +
	"capsh --addamb=cap_net_raw), or use --mode cgroup, which sets the priority from the kernel")

// checkLevelCapability refuses a level above 6 unless the program exec'd next will hold
// CAP_NET_ADMIN or CAP_NET_RAW: the capability must be effective now, and survive exec, which
// it does for root and for ambient capabilities.
func checkLevelCapability(l model.Level) error {
	if l <= maxUnprivilegedLevel {
		return nil
	}
	caps, err := host.ReadCaps()
	if err != nil {
		return fmt.Errorf("check capabilities for level %d: %w", l, err)
	}
	net := host.CapMask(unix.CAP_NET_ADMIN, unix.CAP_NET_RAW)
	keeps := os.Geteuid() == 0 || caps.Amb&net != 0
	if caps.Eff&net == 0 || !keeps {
		return ErrLevelNeedsCapability
	}
	return nil
}
