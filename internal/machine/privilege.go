package machine

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/qjump-net/qjump/internal/host"
)

// ErrNoPrivilege means the process cannot measure stalls: the monitor's threads need real-time
// priority, and holding the CPUs awake needs root's device.
var ErrNoPrivilege = errors.New("the stall monitor needs root")

// CheckPrivilege looks for what Record needs, and with awake what HoldCPUsAwake needs, before
// anything runs: a user without them gets one line saying what is missing and how to get it,
// where each CPU's thread said "operation not permitted" in a line of its own. Real-time
// priority takes CAP_SYS_NICE, or an RLIMIT_RTPRIO that allows the monitor's priority; holding
// the CPUs awake takes write access to /dev/cpu_dma_latency, which is root's.
func CheckPrivilege(awake bool) error {
	var missing []string
	if !mayRunRealtime() {
		missing = append(missing, "CAP_SYS_NICE (real-time priority for its threads)")
	}
	if awake {
		err := unix.Faccessat(unix.AT_FDCWD, cpuLatencyPath, unix.W_OK, unix.AT_EACCESS)
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
			missing = append(missing, "write access to "+cpuLatencyPath+" (to hold the CPUs awake)")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: this process lacks %s: run it with sudo", ErrNoPrivilege, strings.Join(missing, " and "))
	}
	return nil
}

// mayRunRealtime says whether this process may give a thread SCHED_FIFO at monitorPriority;
// true when its capabilities cannot be read, so that the monitor's own error speaks then.
func mayRunRealtime() bool {
	caps, err := host.ReadCaps()
	if err != nil || caps.Eff&host.CapMask(unix.CAP_SYS_NICE) != 0 {
		return true
	}
	var rl unix.Rlimit
	return unix.Getrlimit(unix.RLIMIT_RTPRIO, &rl) == nil && rl.Cur >= monitorPriority
}
