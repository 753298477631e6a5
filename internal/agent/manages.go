package agent

import (
	"slices"

	"github.com/qjump-net/qjump/internal/host"
)

// Manages says whether a qjump agent that keeps its state in dir is running and runs QJump on
// device in this network namespace, and its pid: what `qjump status` needs to tell an interface
// whose hook was removed, which the agent puts back within a second, from one that only
// `qjump down` clears. It holds the lock of a running agent (lockStateDir), seen in /proc/locks
// without taking it (taking it, even for a moment, would make an agent starting then refuse), and
// its saved state names the device in this namespace. An agent with another --state-dir, or one
// that saved no namespace (before this was recorded), is not seen: false. Status asks the agent
// of its namespace on its socket first (Find), which sees any --state-dir; this is for an agent
// that answers nothing there (an earlier version).
func Manages(dir, device string) (pid int, ok bool) {
	pid, held := host.LockHolder(lockFile(dir))
	if !held {
		return 0, false
	}
	s, err := readState(dir)
	if err != nil || s.Netns == "" || !slices.Contains(s.Devices, device) {
		return 0, false
	}
	if ns, err := host.NetnsKey(); err != nil || ns != s.Netns {
		return 0, false
	}
	return pid, true
}
